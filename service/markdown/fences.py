"""Code blocks: which lines of a note are prose and which are code.

Links, tags and task syntax inside code are code, not structure; every scanner that reads or
rewrites them classifies lines with the same `CodeScanner`, so the index, tag edits and link
rewrites agree. Code is:
- a fenced block (``` or ~~~; it closes with the same character, at least as long, as
  CommonMark says), also inside a blockquote or callout (`> ```` … `> ````; the block also
  ends where the quote does) and indented under a list item;
- an indented block: a line indented by 4 spaces (or a tab) after a blank line, outside lists
  and quotes, and the indented or blank lines that follow it.

`Comments` tells the lines inside a comment block (`%%` … `%%`, `<!--` … `-->`, also inside a
blockquote or callout, or opened in a list item, `- <!--`): a heading, list item, task or block id there is none
(`service.markdown.parse`). A comment's text is read to its closing mark: a code fence opened
inside it ends there too (`Comments.seen`), so an unclosed ``` in a comment hides neither the
comment's end nor the rest of the note; a `%%` or `<!--` in code opened before is no mark.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

FENCE = re.compile(r"^[ \t]{0,3}(```+|~~~+)")
_FENCE_ANY = re.compile(r"^[ \t]*(```+|~~~+)")  # under a list item a fence may be indented further
_QUOTES = re.compile(r"^(?:[ \t]{0,3}>[ \t]?)+")
_SPECIAL = frozenset([*" \t>`~-*+0123456789\r", ""])  # first characters that need the full classification
_BULLETS = frozenset("-*+")
_AFTER_BULLET = frozenset([" ", "\t", "", "\r"])
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])(?:[ \t]|$)")
_ITEM_COMMENT = re.compile(r"^([ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]{1,4})<!--")  # a list item holding an HTML comment block
# A backtick run, the shortest text without that run, the same run: `(`+)(?:(?!\1).)+?\1`, written
# with its first backtick outside the group so the engine searches for it in C (~8x faster on a
# paragraph with inline code; the same spans).
INLINE_CODE = re.compile(r"`(`*)(?:(?!`\1).)+?`\1")


def mask_inline_code(line: str) -> str:
    """`line` with each inline code span blanked (same length)."""
    return INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


_WIKILINK = re.compile(r"\[\[[^\[\]\n]+?\]\]")  # as `parse` and `service.graph.rewrite` read one


def mask_code_outside_links(line: str) -> str:
    """`mask_inline_code`, but a wikilink opened before a backtick keeps it: read left to right,
    the first of a link and a code span wins, as in Obsidian, whose help links to headings holding
    code (`[[#`move`|move]]`, `[[Filters#`wikilink`|wikilink]]`): the link's text stays as written,
    and the heading it names is found (blanked, `[[Note#Use `x` here]]` named 'Use     here', no
    heading, and `[[#`move`|move]]` no heading at all). A link inside a code span stays none."""
    if "[[" not in line:
        return mask_inline_code(line)
    parts: list[str] = []
    pos = 0
    link = _WIKILINK.search(line)
    while (code := INLINE_CODE.search(line, pos)) is not None:
        if link is not None and link.start() < pos:  # one inside a code span: the next after it
            link = _WIKILINK.search(line, pos)
        if link is not None and link.start() < code.start():  # the link opens first: it wins
            parts.append(line[pos : link.end()])
            pos = link.end()
            continue
        parts.append(line[pos : code.start()])
        parts.append(" " * (code.end() - code.start()))
        pos = code.end()
    parts.append(line[pos:])
    return "".join(parts)


def closes(fence: str, match: re.Match[str] | None) -> bool:
    """Whether a fence-looking line closes the open `fence`."""
    return match is not None and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence)


def _indent(text: str) -> int:
    width = 0
    for ch in text:
        if ch == " ":
            width += 1
        elif ch == "\t":
            width += 4 - width % 4
        else:
            break
    return width


def unquote(raw: str) -> tuple[int, str]:
    """(blockquote depth, text after the `>` markers) of a line."""
    if ">" not in raw[:8]:
        return 0, raw
    m = _QUOTES.match(raw)
    if m is None:
        return 0, raw
    return m.group(0).count(">"), raw[m.end() :]


class CodeScanner:
    """Feed a note's body lines in order; `code(line)` says whether each one is code.

    `depth` and `content` describe the last line fed: its blockquote depth and its text after
    the quote markers (what task and heading syntax is read from inside a callout)."""

    __slots__ = ("_fence", "_fence_depth", "_indented", "_in_list", "_prev_blank", "content", "depth")

    def __init__(self) -> None:
        self._fence: str | None = None
        self._fence_depth = 0
        self._indented = False
        self._in_list = False
        self._prev_blank = True
        self.depth = 0
        self.content = ""

    def code(self, raw: str) -> bool:
        if self._fence is None and not self._indented:
            # Fast paths for most lines: text or a bullet at the margin is never code; a bullet
            # opens (or continues) a list, anything else at the margin ends one.
            if not raw:
                self.depth, self.content = 0, raw
                self._prev_blank = True
                return False
            first = raw[0]
            if first not in _SPECIAL:
                self.depth, self.content = 0, raw
                self._prev_blank = self._in_list = False
                return False
            if first in _BULLETS:
                self.depth, self.content = 0, raw
                self._prev_blank = False
                self._in_list = raw[1:2] in _AFTER_BULLET
                return False
        depth, content = unquote(raw)
        self.depth, self.content = depth, content
        stripped = content.lstrip(" \t")
        blank = not stripped or stripped.isspace()
        if self._fence is not None:
            if depth >= self._fence_depth:
                if stripped[:1] in ("`", "~") and closes(self._fence, _FENCE_ANY.match(content)):
                    self._fence = None
                self._prev_blank = False
                return True
            self._fence = None  # the quote holding the fence ended, and the fence with it
        if self._indented:
            if blank or (depth == 0 and _indent(content) >= 4):
                self._prev_blank = blank
                return True
            self._indented = False
        if blank:
            self._prev_blank = True
            return False
        indent = _indent(content) if content[:1] in (" ", "\t") else 0
        if depth == 0 and indent >= 4 and self._prev_blank and not self._in_list:
            self._indented = True
            self._prev_blank = False
            return True
        self._prev_blank = False
        if stripped[:1] in ("`", "~"):
            opened = (_FENCE_ANY if self._in_list else FENCE).match(content)
            if opened:
                self._fence, self._fence_depth = opened.group(1), depth
                return True
        if _LIST_ITEM.match(content) if stripped[:1] in "-*+0123456789" else False:
            self._in_list = True
        elif indent == 0:
            self._in_list = False
        return False

    def end_block(self) -> None:
        """End the code block the last line fed is in: it is read as no code (`Comments.seen`)."""
        self._fence = None
        self._indented = False
        self._prev_blank = False


def outside_code(lines: list[str], start: int = 0, ended: set[int] | None = None) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line from `start` on that is not code; a code block opened
    inside a comment ends at the comment's closing mark (`Comments.seen`). `ended` is given the
    number of each line, before it is yielded, where an HTML comment block ends with the list item
    or quote it opened in (no `-->`): a reader that tracks comments within lines closes its own."""
    scanner = CodeScanner()
    comments = Comments()
    for no in range(start, len(lines)):
        raw = lines[no]
        is_code = scanner.code(raw)
        if comments.percent or comments.html:
            was_html = comments.html
            is_code = comments.seen(scanner, raw, is_code)
            if ended is not None and was_html and not comments.html:
                ended.add(no)
        if is_code:
            continue
        if comments.percent or comments.html or "%%" in raw or "<!--" in raw:
            comments.inside(mask_inline_code(raw) if "`" in raw else raw, scanner)
        yield no, raw


outside_fences = outside_code  # the name the link rewriter and tag editor import


def unfence(source: str, language: str) -> str:
    """The text inside a ```` ```<language> ```` block pasted whole (``` or ~~~; the closing
    fence optional), as the plugin reads the block; other text as it is. The fence lines become
    blank, so an error's line and column still point into `source`."""
    m = _pasted(language).match(source)
    return source if m is None else f"{m['lead']}\n{m['body']}"


_PASTED: dict[str, re.Pattern[str]] = {}


def _pasted(language: str) -> re.Pattern[str]:
    found = _PASTED.get(language)
    if found is None:
        found = _PASTED[language] = re.compile(
            r"\A(?P<lead>\s*)(?P<fence>`{3,}|~{3,})[ \t]*"
            + re.escape(language)
            + r"[ \t]*\n(?P<body>.*?)(?:\n[ \t]*(?P=fence)[`~]*)?\s*\Z",
            re.IGNORECASE | re.DOTALL,
        )
    return found


class Comments:
    """Where Obsidian comments are across lines, to tell a line inside one (no heading, list item,
    task nor block id there; `service.markdown.parse`): `%%` … `%%` (an odd count of `%%` on a
    line opens or closes one), and an HTML comment block (CommonMark's: a line starting with
    `<!--`, up to 3 spaces in, to the line holding `-->`; in a blockquote or callout, `> <!--`,
    the block also ends where that quote does, and in a list item, `- <!--`, where that item does:
    at a line indented less than its text, as CommonMark reads it and Obsidian shows it).
    After `inside`, `percent or html` tells whether the line ends inside one.

    Each line is first given to a `CodeScanner` and, while a comment is open, to `seen`: the
    comment is read to its closing mark, so a code block opened inside it ends on the line
    holding that mark (the comment's end is no code) rather than taking the rest of the note."""

    __slots__ = ("html", "html_depth", "html_indent", "percent")

    def __init__(self) -> None:
        self.percent = False
        self.html = False
        self.html_depth = 0  # the blockquote depth the HTML comment block opened at
        self.html_indent = 0  # opened in a list item (`- <!--`): the item's content column, else 0

    def seen(self, scanner: CodeScanner, raw: str, is_code: bool) -> bool:
        """Whether `raw`, just fed to `scanner` (which said `is_code`), is code, with a comment
        open: a quote holding an HTML comment block that ended ends the block; a code line that
        holds the open comment's closing mark ends the code block (opened inside the comment:
        code lines open no comment) and is read as the comment's end."""
        if self.html and (scanner.depth < self.html_depth or self._left_item(scanner.content)):
            self.html = False
        elif is_code and (("%%" in raw) if self.percent else ("-->" in raw)):
            scanner.end_block()
            return False
        return is_code

    def _left_item(self, content: str) -> bool:
        """Whether `content` (a line's text after its quote markers) is past the list item an HTML
        comment block opened in: a line that is not blank, indented less than the item's text."""
        return (
            bool(self.html_indent) and not content.isspace() and bool(content) and _indent(content) < self.html_indent
        )

    def inside(self, line: str, scanner: CodeScanner | None = None) -> bool:
        """Whether `line` (a line outside code, inline code masked, just fed to `scanner`, which
        tells its quote markers) starts inside a comment; its marks open or close one for the
        lines after it. Callers skip the call for a line with no `%%` or `<!--` while no comment
        is open (most lines)."""
        if self.html:
            self.html = "-->" not in line
            return True
        was = self.percent
        depth = scanner.depth if scanner is not None else 0
        content = line[len(line) - len(scanner.content) :] if scanner is not None and depth else line
        lead = content.lstrip(" ")
        if not was and lead[:4] == "<!--" and len(content) - len(lead) <= 3:
            self.html = "-->" not in lead[4:]
            self.html_depth, self.html_indent = depth, 0
        elif not was and (item := _ITEM_COMMENT.match(content)) is not None:
            self.html = "-->" not in content[item.end() :]
            self.html_depth, self.html_indent = depth, len(item.group(1).expandtabs(4))
        elif "%%" in line and line.count("%%") % 2:
            self.percent = not was
        return was


def left_open(lines: list[str], start: int = 0) -> tuple[str, int] | None:
    """What `lines` (from `start`, the body) leave open at their end, as Obsidian reads them, and
    the 0-based line it opened at: the opening code fence (```` ``` ````, `~~~`) of a code block
    never closed, `%%` or `<!--` for a comment never closed; None when every block closes (an
    indented code block ends at the next line that is not indented, so it is never open)."""
    scanner, comments = CodeScanner(), Comments()
    opened = start
    for no in range(start, len(lines)):
        raw = lines[no]
        was = scanner._fence is not None or comments.percent or comments.html
        is_code = scanner.code(raw)
        if comments.percent or comments.html:
            is_code = comments.seen(scanner, raw, is_code)
        if not is_code and (comments.percent or comments.html or "%%" in raw or "<!--" in raw):
            comments.inside(mask_inline_code(raw) if "`" in raw else raw, scanner)
        if not was and (scanner._fence is not None or comments.percent or comments.html):
            opened = no
    if scanner._fence is not None:
        return scanner._fence, opened
    if comments.percent or comments.html:
        return "%%" if comments.percent else "<!--", opened
    return None
