"""The headings and block ids of a note exactly as `parse.parse_note` reads them (outside code,
inline code masked, not in a comment, from the body on), without its tags, links, tasks, items or
YAML and without holding the note's lines: what a heading or block address needs
(`service.markdown.sections`), a fraction of a whole parse's time and memory on a long note.

`Outliner` takes the lines one at a time, so a note too long to hold is read by its lines from
the file (`service.tools.notes.part_reads`); `outline` feeds it a text.
"""

from __future__ import annotations

import re

from service.markdown import frontmatter as fm
from service.markdown.fences import CodeScanner, Comments, mask_inline_code
from service.markdown.line_ends import lf
from service.markdown.parse import _BLOCK_ID, _HEADING, Heading

# A list item as `sections.find_block` tells one: the paragraph of a block id ends above it.
LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s")
# A thematic break ('* * *', '- - -'): no list item, though it starts like one (CommonMark).
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")


class Outliner:
    """Headings and (`blocks`) block ids of the body lines fed in order (`feed(no, raw)`, `raw`
    without its line end), with the first line of each block (`block_starts`, as
    `sections.find_block` reads it; right only when every line from the note's first,
    frontmatter too, is also given to `paragraph` after its `feed`):

    - an id at the end of a list item's line, or of a line continuing an item (`- a` then
      `  more ^id`): the item's line;
    - an id on a line of its own after a blank line (`^id` alone, Obsidian's form for a quote,
      callout, list, table or code block): the first line of the block above it, the run of
      non-blank lines before the blank (blank lines inside a fence do not end it), or the whole
      list above it, a loose one too (items or their indented lines after blank lines, the same
      marker at the margin: `- a`, blank, `- b`, blank, `^id` names both items, as a list is one
      block in Markdown); only its own line when nothing but a heading or the frontmatter is above;
      a list ends at an item of another marker indented less than the last item's text (`1. a`,
      blank, `  - b` is two lists: CommonMark, and remark-parse's list rule Obsidian reads notes
      with) and at a thematic break (`* a` then `* * *`), which is a block of its own;
    - else the first line of its paragraph (an id line right under a quote or a paragraph
      continues it).
    """

    __slots__ = (
        "block_starts",
        "blocks",
        "code",
        "code_line",
        "comments",
        "fed",
        "found",
        "headings",
        "item_at",
        "last_list",
        "last_run",
        "list_at",
        "marker",
        "para",
        "rule",
        "run",
    )

    def __init__(self, *, blocks: bool = True) -> None:
        self.headings: list[Heading] = []
        self.found: dict[str, int] = {}
        self.block_starts: dict[str, int] = {}
        self.blocks = blocks
        self.code = CodeScanner()
        self.comments = Comments()
        self.para = 0  # the first line of the paragraph being read (`paragraph`)
        self.run = -1  # the first line of the run of non-blank body lines being read, or -1
        self.last_run = -1  # the first line of the run before the last blank line, or -1
        self.list_at = -1  # the first line of the list the run being read is in (or the last was), or -1
        self.last_list = -1  # `list_at` of the run before the last blank line
        self.marker = ""  # that list's marker at the margin ('-', '*', '+', '.' or ')')
        self.item_at = 0  # the column the text of that list's last item starts at (its lines go on from it)
        self.rule = False  # the last line was a thematic break: the next line starts a block
        self.fed = self.code_line = -1  # the last line fed; the last fed that is code

    def feed(self, no: int, raw: str) -> None:
        self.fed = no
        comments = self.comments
        is_code = self.code.code(raw)
        if comments.percent or comments.html:  # a code block opened in a comment ends with it
            is_code = comments.seen(self.code, raw, is_code)
        if is_code:
            self.code_line = no
        hidden = False
        if not is_code and (comments.percent or comments.html or "%%" in raw or "<!--" in raw):
            hidden = comments.inside(mask_inline_code(raw) if "`" in raw else raw, self.code)
        if not is_code and (raw[:1] == "#" or (self.blocks and "^" in raw)):
            line = mask_inline_code(raw) if "`" in raw else raw
            h = _HEADING.match(line) if line[:1] == "#" and not hidden else None
            if h and line is not raw:  # its text as written, as `parse_note` reads it
                h = _HEADING.match(raw)
            if h:
                self.headings.append(Heading(len(h.group(1)), h.group(2).strip(), no))
            unseen = hidden or comments.percent or comments.html  # as parse_note reads it
            b = _BLOCK_ID.search(line) if self.blocks and "^" in line and not unseen else None
            if b and b.group(1) not in self.found:
                self.found[b.group(1)] = no
                self.block_starts[b.group(1)] = self._start(no, raw, b.group(1))

    def _start(self, no: int, raw: str, block: str) -> int:
        if LIST_ITEM.match(raw):
            return no
        if self.run < 0 and self.last_run >= 0 and raw.strip() == f"^{block}":
            return self.last_list if self.last_list >= 0 else self.last_run  # the id alone: the block above it
        return self.para

    def paragraph(self, no: int, raw: str) -> None:
        """After `feed` of line `no` (any line, frontmatter too): where the next paragraph starts."""
        lead = raw.lstrip()[:1]
        if not lead:
            self.para = no + 1
            if self.code_line != no and self.run >= 0:  # a blank line outside code ends a run
                self.last_run, self.last_list, self.run = self.run, self.list_at, -1
        elif self.fed != no or (self.headings and self.headings[-1].line == no):
            self.para, self.run, self.last_run = no + 1, -1, -1  # not a block an id names
            self.list_at = self.last_list = -1
            self.rule = False
        else:
            code = self.code_line == no
            if lead in "-*_" and not code and self._broken(no, raw):
                return
            item = LIST_ITEM.match(raw) if (lead in "-*+" or lead.isdigit()) and not _RULE.match(raw) else None
            if lead == "#":
                self.para = no + 1
            elif item is not None:
                self.para = no  # the lines continuing the item belong to it
            if code:
                item = None  # a line of code is no list item
            if self.run < 0 or self.rule:
                self._list(no, raw, item)
                self.run, self.rule = no, False
            elif item is not None:  # an item of the list, one in it, or a list right under a paragraph
                self._item(no, raw, item)

    def _broken(self, no: int, raw: str) -> bool:
        """Whether line `no` is a thematic break ending the block above (a list's too): then it
        is a block of its own (an id alone after it names it) and the next line starts one. A
        break inside a list item (indented to its text) is the item's; '---' right under a
        paragraph underlines a heading (setext), not read here: left as before."""
        if not _RULE.match(raw) or (self.list_at >= 0 and _column(raw) >= min(self.item_at, 4)):
            return False
        if raw.lstrip()[:1] == "-" and self.run >= 0 and self.list_at < 0 and not self.rule:
            return False
        self.para, self.run, self.list_at, self.rule = no + 1, no, -1, True
        return True

    def _item(self, no: int, raw: str, item: re.Match[str]) -> None:
        """The list the item at line `no` is in: inside the last item (indented to its text: a
        deeper item), the next item of the list (its marker, less indented), or a new list (another
        marker: `1. a` then `  - b`, or no list above)."""
        if self.list_at >= 0 and _column(raw) >= min(self.item_at, 4):
            return
        marker = item.group(1)[-1]
        if self.list_at < 0 or marker != self.marker:
            self.list_at, self.marker = no, marker
        self.item_at = _text_column(raw, item)

    def _list(self, no: int, raw: str, item: re.Match[str] | None) -> None:
        """`list_at` of the run starting at line `no`: the list before the blank line above goes on
        (an item of its marker at the margin, a deeper item, an indented line), or one starts."""
        if item is not None:
            self._item(no, raw, item)
        elif self.list_at < 0 or raw[:1] not in " \t":  # an indented line: the item's own (remark-parse)
            self.list_at = -1


def _column(raw: str) -> int:
    """The column a line's text starts at (a tab to the next multiple of 4)."""
    lead = raw[: len(raw) - len(raw.lstrip(" \t"))]
    return len(lead.expandtabs(4))


def _text_column(raw: str, item: re.Match[str]) -> int:
    """The column a list item's text starts at: where the lines that go on with it are indented
    to (CommonMark's content column: 1-4 spaces after the marker; 5 or more, or none, count as 1)."""
    marker_end = len(raw[: item.end(1)].expandtabs(4))
    rest = raw[item.end(1) :]
    gap = len(rest[: len(rest) - len(rest.lstrip(" \t"))].expandtabs(4)) if rest.strip() else 1
    return marker_end + (gap if 1 <= gap <= 4 else 1)


def outline(text: str, *, blocks: bool = True) -> tuple[list[Heading], dict[str, int]]:
    """The headings and (`blocks`) block ids of `text` (`Outliner`)."""
    text = lf(text)
    found = Outliner(blocks=blocks)
    front = fm.fences(text)
    no, pos = front.body_line, (text.rfind("\n", 0, front.body_start) + 1 if front.body_start else 0)
    feed = found.feed
    while True:
        end = text.find("\n", pos)
        feed(no, (text[pos:] if end < 0 else text[pos:end]).rstrip("\r"))
        if end < 0:
            return found.headings, found.found
        pos, no = end + 1, no + 1
