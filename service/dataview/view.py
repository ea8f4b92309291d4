"""One caller's window on a vault's Dataview pages (`pages.PageSet`).

A note the caller may not read is absent from the view and from every `file.inlinks`, and a link
to it evaluates exactly as a link to no note: every link value that names a file the caller may
not read (`file.outlinks`, link fields, list items and tasks, links written in the query) is
resolved again among the notes the caller may read — as if the hidden note were not there — and
otherwise shows the target as the note wrote it, as an unresolved link does (the folder left off
when the written path itself lies where the caller may not read, as for an absent note there).
Never the path it resolves to: `[[X]] = [[Private/X]]` and `contains(file.outlinks, [[Private/X]])`
answer the same for a hidden `Private/X.md` as for an absent one (get_outlinks and Bases likewise).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.dataview import values
from service.dataview.pages import PageFile, PageSet
from service.dataview.values import Link


class View:
    """The pages one caller may read, with links to unreadable notes removed."""

    def __init__(self, pages: PageSet, can_read: Callable[[str], bool], everything: bool) -> None:
        self.set = pages
        self.can_read = can_read
        self.everything = everything
        self._rows: dict[str, Mapping[str, Any]] = {}

    def paths(self) -> list[str]:
        if self.everything:
            return self.set.order
        return [p for p in self.set.order if self.can_read(p)]

    def rows(self, paths: list[str]) -> list[Mapping[str, Any]]:
        """The rows of `paths` (readable ones only), in that order."""
        if self.everything and paths is self.set.order:
            if self.set.ordered_rows is None:
                self.set.ordered_rows = [self.set.pages[p] for p in paths]
            return list(self.set.ordered_rows)
        return [r for r in map(self.row, paths) if r is not None]

    def row(self, path: str) -> Mapping[str, Any] | None:
        page = self.set.pages.get(path)
        if page is None or not (self.everything or self.can_read(path)):
            return None
        if self.everything:
            return page
        cached = self._rows.get(path)
        if cached is None:
            readable = PageFile(page).cut_with(self.cut, self.can_read)
            fields = {k: self.cut(v) for k, v in page.items()} if any(map(values.holds_link, page.fields())) else page
            cached = self._rows[path] = {**fields, "file": readable}
        return cached

    def resolve_path(self, target: str) -> str | None:
        """The note `target` names among those the caller may read (a hidden one is no candidate)."""
        return self.set.resolve_path(target, None if self.everything else self.can_read)

    def linking_to_written(self, written: str) -> list[str]:
        """The pages with a link written `written` that names no note the caller may read."""
        return self.set.linking_to_written(written, None if self.everything else lambda p: not self.can_read(p))

    def cut(self, value: Any) -> Any:
        """`value` with every link to a file the caller may not read as if that file were absent."""
        if isinstance(value, Link):
            if self.everything or self.can_read(value.path):
                return value
            written = (value.written if value.written is not None else value.path).strip()
            path = self.resolve_path(written)  # the note the link names when the hidden one is not there
            if path is not None:
                return Link(path, value.display, value.embed, value.subpath, written=written)
            shown = written if self.can_read(written) else written.rsplit("/", 1)[-1]
            return Link(shown, value.display, value.embed, value.subpath)
        if isinstance(value, list):
            return [self.cut(v) for v in value]
        if type(value) is dict:
            return {k: self.cut(v) for k, v in value.items()}
        return value

    def row_of(self, link: Link) -> Mapping[str, Any] | None:
        path = self.resolve_path(link.path)
        return self.row(path) if path else None

    def resolve(self, link: Link) -> Link:
        resolved = self.set.resolve(link)
        return resolved if self.everything else self.cut(resolved)
