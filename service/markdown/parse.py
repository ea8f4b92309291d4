"""Parse one Obsidian note into the facts the index and the tools need.

`parse_note(rel, text)` is pure and fast (regexes over lines, one pass); it never changes or
loses text. Code (fenced blocks, also inside callouts, indented blocks, inline code; see
`fences.CodeScanner`) is masked before tags and links are read, so `#not-a-tag` inside backticks
or a `[[link]]` in a code block do not count; a wikilink opened before a backtick keeps its
inline code (`[[#`move`|move]]`, `fences.mask_code_outside_links`), the rest of the line is read
with every code span masked (comments, tags, headings, block ids: as `outline` reads them). HTML
is not Markdown: tags are not read inside HTML tags (`style="color: #dcddde"`), HTML comments
(`<!-- … -->`, also across lines) or HTML blocks (CommonMark's block-level elements such as
`<table>`, up to a blank line); links there still count, as in Obsidian's link graph and the
published vault statistics. Obsidian comments (`%% … %%`) are read like the rest of the note, as
Obsidian does (links and tags in them count; the "hidden link" idiom relies on it), except
headings, list items, tasks and block ids: a line starting inside a comment (`%%` … `%%`, or an
HTML comment block: a line starting `<!--`, also `> <!--` in a quote or callout, to `-->`) holds
none, and a block id whose line ends inside one is none, as in Obsidian's outline, block links,
Tasks and Dataview (`Comments`). List items (`items`: line, parent item, task status, text,
block id, section heading, tags) are read inside blockquotes and callouts too (`> - [ ] call`);
they are the one list and task parser of the project: the index's task rows (`tasks`, with the
Tasks plugin fields of `service.markdown.tasks`) and Dataview's `file.lists` / `file.tasks` are
both made from them. Wikilinks written in frontmatter property values are links of the note too,
as in Obsidian, marked with their key (`Link.property`, `service.markdown.property_links`),
before the body's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from service.markdown import frontmatter as fm
from service.markdown.fences import CodeScanner, Comments, mask_code_outside_links, mask_inline_code
from service.markdown.line_ends import lf
from service.markdown.property_links import property_links
from service.markdown.tasks import Style, depends_on
from service.markdown.tasks import read_fields as read_task_fields

_ITEM_START = frozenset("-*+0123456789")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
# The link patterns start with a literal ("[[", "["), so the regex engine skips to the next
# candidate in C instead of trying a match at every position of a line (a leading `(!?)` has no
# such prefix: a 500-character paragraph took ~10 us per pattern, the literal form ~0.5 us); the
# "!" of an embed is read from the character before (`_banged`), which gives the matches and
# spans of `(!?)\[\[…` / `(!?)\[…`. `_TAG` starts with its "#" and looks back at the character
# before it: the same matches as `(?:(?<=\s)|^)#…`.
_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
# A Markdown link's text, as CommonMark reads it: brackets inside it balanced (`[a [b] c](x.md)`,
# one level deep) or escaped (`\]`); not starting with '[' (`[[Note]](x)` is a wikilink and text).
MDLINK_TEXT = r"(?!\[)((?:[^\[\]\n\\]|\\.|\[[^\[\]\n]*\])*)"
_MDLINK = re.compile(r"\[" + MDLINK_TEXT + r"\]\((<[^<>\n]*>|[^()\s]+(?:\([^()\s]*\))?[^()\s]*)(?:\s+\"[^\"]*\")?\)")
_TAG = re.compile(r"#(?<!\S#)([\w/-]*[^\W\d][\w/-]*|[\w/-]*[-/][\w/-]*)")
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+")
_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$")
# A list item (bullet or numbered); a task when a one-character status in brackets follows.
_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|\d+[.)])[ \t]+(?:\[(.)\][ \t]+)?(.*)$")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
HTML_BLOCK = re.compile(
    r"^[ \t]{0,3}</?(?:address|article|aside|blockquote|body|caption|center|col|colgroup|dd|details|dialog"
    r"|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html"
    r"|iframe|legend|li|link|main|menu|nav|ol|optgroup|option|p|section|summary|table|tbody|td|tfoot"
    r"|th|thead|title|tr|ul)(?:[\s/>]|$)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Link:
    target: str  # link text as written, without #subpath and |alias ('' for [[#Heading]])
    subpath: str | None  # 'Heading', 'A#B' or '^blockid'
    alias: str | None
    embed: bool
    kind: str  # 'wikilink' | 'markdown'
    line: int  # 0-based line number in the file
    property: str | None = None  # the frontmatter property it is written in (`property_links`); None: the body


@dataclass(frozen=True, slots=True)
class Heading:
    level: int
    text: str
    line: int


@dataclass(frozen=True, slots=True)
class Task:
    line: int
    status: str  # the character between the brackets
    text: str
    due: str | None = None
    scheduled: str | None = None
    start: str | None = None
    done: str | None = None
    priority: str | None = None
    tags: tuple[str, ...] = ()
    created: str | None = None
    cancelled: str | None = None
    recurrence: str | None = None
    task_id: str | None = None
    depends_on: tuple[str, ...] = ()
    indent: str = ""  # the text before its list marker (spaces, tabs, `>` of a quote), as written
    head: str = ""  # the line up to its text: indent, list marker, `[ ]` and the spaces after, as written

    @property
    def completed(self) -> bool:
        return self.status.lower() == "x"


@dataclass(frozen=True, slots=True)
class ListItem:
    """A list item (a task when `status` is set): what Dataview's `file.lists` / `file.tasks`
    read, and what `tasks` (the index's task rows) is made of."""

    line: int
    parent: int  # line of the enclosing list item, -1 at the top level
    status: str | None
    text: str  # after the marker and the status, as written
    block: str | None  # block id (`^abc` at the end of the line)
    section: str | None  # the heading the item is under
    tags: tuple[str, ...] = ()


@dataclass(slots=True)
class ParsedNote:
    title: str  # Obsidian's title: the file's base name (`note_title`)
    search_title: str  # what full-text search weighs as the title (`search_title`)
    aliases: list[str]
    properties: dict[str, Any]
    frontmatter_error: str | None
    body_line: int
    body_start: int  # character offset of the body (after the frontmatter block)
    tags: list[str]  # unique, without '#', frontmatter first then inline order
    inline_tags: list[str]
    links: list[Link] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    block_ids: dict[str, int] = field(default_factory=dict)
    tasks: list[Task] = field(default_factory=list)
    items: list[ListItem] = field(default_factory=list)
    word_count: int = 0


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [p.strip() for p in re.split(r"[,\s]+" if "," in value or " " in value else r",", value) if p.strip()]
    if isinstance(value, list):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def frontmatter_tags(props: dict[str, Any]) -> list[str]:
    out: dict[str, None] = {}  # an ordered set: a note may list 100,000 tags (a list's `in` is quadratic)
    for key in ("tags", "tag"):
        for t in _as_list(props.get(key)):
            t = t.lstrip("#").strip()
            if t:
                out.setdefault(t)
    return list(out)


def frontmatter_aliases(props: dict[str, Any]) -> list[str]:
    for key in ("aliases", "alias"):
        if key in props:
            value = props[key]
            if isinstance(value, str):
                return [a.strip() for a in value.split(",") if a.strip()]
            return _as_list(value)
    return []


def _banged(pattern: re.Pattern[str], text: str) -> Iterator[tuple[int, re.Match[str]]]:
    """`pattern`'s matches in `text`, each with its start including a "!" just before it (an
    embed): the matches of `(!?)` + `pattern`, scanned left to right without overlap."""
    pos = 0
    for m in pattern.finditer(text):
        start = m.start()
        if start > pos and text[start - 1] == "!":
            start -= 1
        yield start, m
        pos = m.end()


def _md_links(text: str, no: int) -> Iterator[Link]:
    """The Markdown links of `text`, each followed by those in its text (`[![i](a.png)](b.md)`)."""
    for start, m in _banged(_MDLINK, text):
        href = m.group(2)
        if href.startswith("<") and href.endswith(">"):
            href = href[1:-1]  # CommonMark's <destination> form
        if href and not _SCHEME.match(href) and href != "#":
            # Cut at the '#' as written, then decoded: `a%23b.md#h` is note `a#b.md`, heading `h`.
            target, _, sub = href.partition("#")
            yield Link(unquote(target), unquote(sub) or None, m.group(1) or None, start < m.start(), "markdown", no)
        if "](" in m.group(1):
            yield from _md_links(m.group(1), no)


def _blank_links(pattern: re.Pattern[str], text: str) -> str:
    """`text` with each link of `pattern` (its "!" included) replaced by one space."""
    parts: list[str] = []
    pos = 0
    for start, m in _banged(pattern, text):
        parts.append(text[pos:start])
        parts.append(" ")
        pos = m.end()
    if not parts:
        return text
    parts.append(text[pos:])
    return "".join(parts)


def mask_comments(line: str, is_open: bool) -> tuple[str, bool]:
    """Blank out HTML comments (`<!-- … -->`); `is_open` says a comment from an earlier line is
    still open. Returns the line and whether a comment is still open after it."""
    out = line
    pos = 0
    while True:
        if is_open:
            end = out.find("-->", pos)
            if end < 0:
                return out[:pos] + " " * (len(out) - pos), True
            out = out[:pos] + " " * (end + 3 - pos) + out[end + 3 :]
            pos, is_open = end + 3, False
        start = out.find("<!--", pos)
        if start < 0:
            return out, False
        out = out[:start] + "    " + out[start + 4 :]
        pos, is_open = start + 4, True


def _split_link(inner: str) -> tuple[str, str | None, str | None]:
    alias = None
    if "\\|" in inner:  # inside a Markdown table the alias pipe is escaped: [[Target\|alias]]
        inner, alias = inner.split("\\|", 1)
        alias = alias.strip() or None
    elif "|" in inner:
        inner, alias = inner.split("|", 1)
        alias = alias.strip() or None
    subpath = None
    if "#" in inner:
        inner, subpath = inner.split("#", 1)
        subpath = subpath.strip() or None
    return inner.strip(), subpath, alias


def _task(line_no: int, status: str, text: str, tags: list[str], indent: str, head: str, fmt: Style | None) -> Task:
    """A task row; its fields are read from `text` as the Tasks plugin reads them: from the end of
    the line as written (inline code and comments included: `📅 2026-12-01 `x`` ends in code, no
    due date), in its settings' format `fmt` (None: either)."""
    if "::" not in text and text.isascii():  # most tasks carry no field at all
        return Task(line=line_no, status=status, text=text.strip(), tags=tuple(tags), indent=indent, head=head)
    f = read_task_fields(text, fmt)[0]
    return Task(
        line=line_no,
        status=status,
        text=text.strip(),
        due=f.get("due"),
        scheduled=f.get("scheduled"),
        start=f.get("start"),
        done=f.get("done"),
        priority=f.get("priority"),
        tags=tuple(tags),
        created=f.get("created"),
        cancelled=f.get("cancelled"),
        recurrence=f.get("recurrence") or None,
        task_id=f.get("id") or None,
        depends_on=depends_on(f),
        indent=indent,
        head=head,
    )


def parse_note(rel: str, text: str, task_format: Style | None = None) -> ParsedNote:
    """`task_format`: the format the Tasks plugin settings read task fields in (None: both)."""
    text = lf(text)  # a CR alone ends a line, as in Obsidian's editor (same length: offsets hold)
    front = fm.split(text)
    props = front.data
    lines = text.split("\n")
    fm_tags = frontmatter_tags(props)
    inline_tags: dict[str, None] = {}  # first-seen order; a dict, not a list: `in` on a list is linear
    links: list[Link] = []
    if front.raw is not None and props and "[[" in front.raw:  # links in properties count, as in Obsidian
        for key, target, subpath, alias, no in property_links(front.raw, props, 1, _split_link):
            links.append(Link(target, subpath, alias, False, "wikilink", no, key))
    headings: list[Heading] = []
    blocks: dict[str, int] = {}
    tasks: list[Task] = []
    items: list[ListItem] = []
    open_items: list[tuple[int, int]] = []  # (indent, line) of the list items still open
    section: str | None = None
    code = CodeScanner()
    comments = Comments()  # a heading line in a comment is no heading
    comment = False  # an HTML comment is open across lines
    html = False  # inside an HTML block (ends at a blank line)
    # Words counted once over the body (C's split instead of one per line): lines end at "\n",
    # which `split` counts as a space, so the words are those of the lines; code lines' are taken off.
    start = front.body_start
    if start and text[start - 1] != "\n":  # the closing fence ends the text: its line is read too
        start = text.rfind("\n", 0, start) + 1
    words = len(text[start:].split())
    for no in range(front.body_line, len(lines)):
        raw = lines[no].rstrip("\r")
        is_code = code.code(raw)
        if comments.percent or comments.html:  # a code block opened in a comment ends with it
            was_html = comments.html
            is_code = comments.seen(code, raw, is_code)
            if was_html and not comments.html:  # the list item or quote holding the comment block ended: so did it
                comment = False
        if is_code:
            words -= len(raw.split())
            continue
        if not raw.strip():
            html = False
            continue
        if not html and raw[:1] in "< " and code.depth == 0 and raw.lstrip(" ")[:1] == "<":
            html = HTML_BLOCK.match(raw) is not None
        # Cheap membership tests first: most lines have no link, tag, block id or task.
        line = mask_inline_code(raw) if "`" in raw else raw
        prose = line  # what tags are read from: no HTML comments
        if comment or "<!--" in line:
            prose, comment = mask_comments(line, comment)
        hidden = (comments.percent or comments.html or "%%" in line or "<!--" in line) and comments.inside(line, code)
        unseen = hidden or comments.percent or comments.html  # the line's end is in a comment too
        h = _HEADING.match(line) if line[:1] == "#" and not hidden else None
        if h and line is not raw:  # its text as written: inline code in it is part of it (`hasTag()`)
            h = _HEADING.match(raw)
        if h:
            headings.append(Heading(len(h.group(1)), h.group(2).strip(), no))
            section = h.group(2).strip()
        has_wiki = "[[" in line
        has_md = "](" in line
        if has_wiki:
            end = 0  # `_banged` written out: most links are read here
            linked = mask_code_outside_links(raw) if line is not raw else line  # a link opened first keeps its code
            for m in _WIKILINK.finditer(linked):
                start = m.start()
                inner = m.group(1)
                if "|" in inner or "#" in inner:
                    target, subpath, alias = _split_link(inner)
                else:
                    target, subpath, alias = inner.strip(), None, None
                embed = start > end and linked[start - 1] == "!"
                links.append(Link(target, subpath, alias, embed, "wikilink", no))
                end = m.end()
        if has_md:
            links.extend(_md_links(line, no))
        line_tags: list[str] = []
        if not html and "#" in prose[len(h.group(1)) if h else 0 :]:
            scrubbed = prose
            if has_md:
                scrubbed = _blank_links(_MDLINK, scrubbed)
            if has_wiki:
                scrubbed = _blank_links(_WIKILINK, scrubbed)
            if "://" in scrubbed:
                scrubbed = _URL.sub(" ", scrubbed)
            if h:
                scrubbed = scrubbed[len(h.group(1)) :]
            if "<" in scrubbed:
                scrubbed = HTML_TAG.sub(" ", scrubbed)
            line_tags = [t for t in _TAG.findall(scrubbed) if not t.replace("/", "").isdigit()]
            for t in line_tags:
                inline_tags.setdefault(t)
        b = _BLOCK_ID.search(line) if "^" in line and not unseen else None
        if b:
            blocks.setdefault(b.group(1), no)
        content = line if code.depth == 0 else line[len(raw) - len(code.content) :]
        item = _ITEM.match(content) if content.lstrip(" \t")[:1] in _ITEM_START and not hidden else None
        if item is not None:
            indent = len(item.group(1).expandtabs(4))
            while open_items and open_items[-1][0] >= indent:
                open_items.pop()
            status, masked = item.group(2), item.group(3)
            text = raw[len(raw) - len(masked) :]  # the same span of the line, inline code as written
            parent = open_items[-1][1] if open_items else -1
            items.append(ListItem(no, parent, status, text, b.group(1) if b else None, section, tuple(line_tags)))
            open_items.append((indent, no))
            if status is not None:  # its indent: the line up to the list marker, quote markers too
                lead = raw[: len(raw) - len(content) + len(item.group(1))]
                head = raw[: len(raw) - len(text.lstrip())]  # up to the text: `task.originalMarkdown`
                tasks.append(_task(no, status, text, line_tags, lead, head, task_format))
        elif not content.startswith((" ", "\t")):
            open_items.clear()  # a line at the margin that is no list item ends the list
    all_tags = list(dict.fromkeys([*fm_tags, *inline_tags]))
    return ParsedNote(
        title=note_title(rel),
        search_title=search_title(rel, props, headings, aliases := frontmatter_aliases(props)),
        aliases=aliases,
        properties=props,
        frontmatter_error=front.error,
        body_line=front.body_line,
        body_start=front.body_start,
        tags=all_tags,
        inline_tags=list(inline_tags),
        links=links,
        headings=headings,
        block_ids=blocks,
        tasks=tasks,
        items=items,
        word_count=words,
    )


def note_title(rel: str) -> str:
    """A file's title, Obsidian's rule (`file.basename`) for every file: its name less its last
    extension. 'Note.md' is 'Note', 'Board.canvas' 'Board', 'photo.png' 'photo' and
    'Plan.excalidraw.md' 'Plan.excalidraw'; a name with no extension ('README', '.hidden') is itself.
    migrations/0021_basename_titles.sql retitles canvases indexed under the older '.md'-only rule."""
    name = rel.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def search_title(rel: str, props: dict[str, Any], headings: list[Heading], aliases: Sequence[str] = ()) -> str:
    """The text full-text search weighs as a title: the note's title, followed by the frontmatter
    `title` (or else the first H1) when that says something else, so a note is found by the
    heading it displays as well as by its file name, then its aliases (`SAR`, `Robustness
    Principle`): the names Obsidian's quick switcher finds it by, often written nowhere else in
    the note. migrations/0006_title_rule.sql derived the first two for rows indexed before that
    rule; 0029_alias_titles.sql has the notes with aliases read again."""
    name = note_title(rel)
    shown = props.get("title")
    if not (isinstance(shown, str) and shown.strip()):
        shown = next((h.text for h in headings if h.level == 1), None)
    shown = shown.strip() if isinstance(shown, str) else None
    names = [name, shown] if shown and shown != name else [name]
    names.extend(a for a in dict.fromkeys(aliases) if a not in names)
    return " ".join(names)
