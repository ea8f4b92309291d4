"""Links as `… by function` expressions see them (Tasks 7.21.0, `src/Task/Link.ts`): `task.outlinks`
(the links on the task's line), `task.file.outlinks`, `task.file.outlinksInBody`,
`task.file.outlinksInProperties`, each a list of `TaskLink` with `originalMarkdown`, `markdown`,
`destination`, `destinationPath`, `displayText` and `linksTo(name | task.file)`.

The plugin reads Obsidian's metadata cache: `links` (the body's, embeds not among them) and
`frontmatterLinks`. Here they are the index's link rows (the one parser, `service.markdown.parse`,
and the one resolver, `service.graph.linkpath` with `service.obsidian.link_order`): `destinationPath`
is the row's resolved `target_path`, null when unresolved or when the caller may not read the
target (as every graph tool shows such a link; `hiding`). A link on a task's line is read again
from the line as written (its `originalMarkdown` exact, the links in the order they are written);
elsewhere in the note its Markdown is written back from the row (`[[target#heading|alias]]`,
`[text](target%20name.md#heading)`): the same link, its spacing and escapes maybe not as written.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from service.markdown.fences import mask_code_outside_links, mask_inline_code
from service.markdown.parse import _MDLINK, _SCHEME, _WIKILINK, _banged

FIELDS = ("originalMarkdown", "markdown", "destination", "destinationPath", "displayText")
FILE_FIELDS = ("outlinks", "outlinksInBody", "outlinksInProperties")
_HIDDEN: ContextVar[frozenset[str]] = ContextVar("tasks_query_hidden_targets", default=frozenset())


@contextmanager
def hiding(paths: frozenset[str]) -> Iterator[None]:
    """While a query runs: the link targets its caller may not read (their `destinationPath` is null)."""
    token = _HIDDEN.set(paths)
    try:
        yield
    finally:
        _HIDDEN.reset(token)


@dataclass(eq=False, slots=True)  # compared as JavaScript compares objects: by identity
class TaskLink:
    original: str
    destination: str  # Obsidian's `link`: the target as written (decoded) with its '#heading'
    target_path: str | None  # resolved by the index
    display_text: str
    source: str  # the note the link is in

    @property
    def destination_path(self) -> str | None:
        path = self.target_path
        return None if path is None or path in _HIDDEN.get() else path

    @property
    def markdown(self) -> str:
        """`originalMarkdown`, but a link into a heading of its own note names the note."""
        if not self.destination.startswith("#"):
            return self.original
        return f"[[{self.source}{self.destination}|{self.display_text}]]"

    def member(self, name: str) -> Any:
        """`link.<name>` (one of `FIELDS`; anything else is undefined, null here)."""
        if name == "originalMarkdown":
            return self.original
        if name == "markdown":
            return self.markdown
        if name == "destination":
            return self.destination
        if name == "destinationPath":
            return self.destination_path
        return self.display_text if name == "displayText" else None

    def links_to(self, name: str) -> bool:
        """`linksTo('name')`: the destination is `name`, or ends in `/name`, either without '.md'
        (case-sensitive); `linksTo(task.file)` compares the resolved path (`destinationPath`)."""
        mine, theirs = self.destination.removesuffix(".md"), name.removesuffix(".md")
        return mine == theirs or mine.endswith("/" + theirs)


@dataclass(slots=True)
class NoteLinks:
    """The links of one note: in its properties, in its body, and the body's by line."""

    properties: list[TaskLink] = field(default_factory=list)
    body: list[TaskLink] = field(default_factory=list)
    by_line: dict[int, list[TaskLink]] = field(default_factory=dict)


NO_LINKS = NoteLinks()
Row = tuple[str, str | None, str | None, str | None, str, int, str | None]  # raw, path, sub, alias, kind, line, prop


def note_links(source: str, rows: list[Row], task_lines: dict[int, str]) -> NoteLinks:
    """`source`'s links from its index rows (embeds left out, in the index's order); the links on
    the lines in `task_lines` (line number: the line as written) are read from the line."""
    out = NoteLinks()
    lines: dict[int, list[Row]] = {}
    for row in rows:
        if row[6] is not None:
            out.properties.append(_from_row(source, row))
        else:
            lines.setdefault(row[5], []).append(row)
    for line, found in sorted(lines.items()):
        written = task_lines.get(line)
        links = _from_line(source, found, written) if written is not None else None
        out.by_line[line] = links if links is not None else [_from_row(source, r) for r in found]
        out.body += out.by_line[line]
    return out


def _destination(raw: str, sub: str | None) -> str:
    return raw + "#" + sub if sub else raw


def _shown(kind: str, destination: str, alias: str | None) -> str:
    """Obsidian's `displayText`: the alias (a Markdown link's text), else the destination without a
    leading '#', each further '#' as ' > ' (`[[Note#A#B]]`: 'Note > A > B')."""
    if alias is not None or kind == "markdown":
        return alias or ""
    return destination.removeprefix("#").replace("#", " > ")


def _from_row(source: str, row: Row) -> TaskLink:
    raw, path, sub, alias, kind, _, _ = row
    destination = _destination(raw, sub)
    if kind == "markdown":
        original = f"[{alias or ''}]({destination.replace(' ', '%20')})"
    else:
        original = f"[[{destination}{'|' + alias if alias is not None else ''}]]"
    return TaskLink(original, destination, path, _shown(kind, destination, alias), source)


def _from_line(source: str, rows: list[Row], raw: str) -> list[TaskLink] | None:
    """The links of one line as written, matched to its index rows (the same reading, in the same
    order: wikilinks, then Markdown links); None when they do not match (read from the rows)."""
    found = _written(raw)
    if len(found) != len(rows) or any(kind != row[4] for (_, _, kind), row in zip(found, rows, strict=True)):
        return None
    placed = sorted(zip(found, rows, strict=True), key=lambda pair: pair[0][0])  # in the order written
    out = []
    for (_, original, kind), (target, path, sub, alias, _, _, _) in placed:
        destination = _destination(target, sub)
        out.append(TaskLink(original, destination, path, _shown(kind, destination, alias), source))
    return out


def _written(raw: str) -> list[tuple[int, str, str]]:
    """(column, Markdown as written, kind) of each link `service.markdown.parse` reads on the line
    `raw`, embeds left out (the index keeps no row of them here), in its order."""
    out: list[tuple[int, str, str]] = []
    line = mask_inline_code(raw) if "`" in raw else raw
    if "[[" in line:
        linked = mask_code_outside_links(raw) if line is not raw else line
        end = 0
        for m in _WIKILINK.finditer(linked):
            if not (m.start() > end and linked[m.start() - 1] == "!"):
                out.append((m.start(), raw[m.start() : m.end()], "wikilink"))
            end = m.end()
    if "](" in line:
        for start, m in _banged(_MDLINK, line):
            href = m.group(2)
            href = href[1:-1] if href.startswith("<") and href.endswith(">") else href
            if href and not _SCHEME.match(href) and href != "#" and start == m.start():
                out.append((m.start(), raw[m.start() : m.end()], "markdown"))
    return out
