"""One task as a Tasks query sees it: the index's columns, its status type, and what is read
from its line only when a query asks for it (the description, the tags as a list)."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from service.dates import iso_day_or_none
from service.markdown import tasks as tk
from service.obsidian.task_status import OPEN_TYPES as OPEN_TYPES  # what `not done` keeps
from service.obsidian.tasks_query.links import NO_LINKS, NoteLinks, TaskLink

DATE_FIELDS = ("due", "scheduled", "start", "done", "created", "cancelled")
PRIORITY_RANK = {p: i for i, p in enumerate(tk.PRIORITIES)}  # 0 = highest
TYPE_RANK = {"in_progress": 0, "todo": 1, "on_hold": 2, "done": 3, "cancelled": 4, "non_task": 5}  # the plugin's order
_MARKER = re.compile(r"[\s>]*([-*+]|[0-9]+[.)])")  # after the indent: the plugin's listMarkerRegex
_HASHTAGS = re.compile(r'(^|\s)#[^ !@#$%^&*(),.?":{}|<>]+')  # the plugin's TaskRegularExpressions.hashTags


@dataclass(slots=True)
class TaskRecord:
    path: str
    line: int  # 0-based, as the index stores it
    status: str
    kind: tk.StatusType
    text: str
    due: str | None
    scheduled: str | None
    start: str | None
    done: str | None
    created: str | None
    cancelled: str | None
    priority: str | None
    recurrence: str | None
    tags_json: str
    task_id: str | None = None
    depends_on_json: str = "[]"
    heading: str | None = None
    status_name: str = "Unknown"  # the plugin's name of the status (`status.name`)
    next_symbol: str = "x"  # the status a toggle moves to (`task.status.nextSymbol`)
    indent: str = ""  # the text before its list marker, quote markers too (`top_level`)
    head: str = ""  # the line up to its text: indent, list marker, `[ ]`, spaces (`originalMarkdown`)
    _description: str | None = field(default=None, repr=False)
    _tags: list[str] | None = field(default=None, repr=False)
    properties: dict[str, Any] | None = field(default=None, repr=False)  # its note's, when a query reads them
    global_filter: str = ""  # the plugin's: not among the tags, not searched by `description includes`
    task_format: tk.Style | None = None  # the format its fields are read in (the plugin's taskFormat; None: both)
    links: NoteLinks | None = field(default=None, repr=False)  # its note's, when a query reads them (`links.py`)

    @property
    def outlinks(self) -> list[TaskLink]:
        """`task.outlinks`: the links on its line (a new list a read)."""
        return list((self.links or NO_LINKS).by_line.get(self.line, ()))

    def file_links(self, name: str) -> list[TaskLink]:
        """`task.file.outlinks` (properties' then body's), `outlinksInBody`, `outlinksInProperties`."""
        found = self.links or NO_LINKS
        if name == "outlinksInBody":
            return list(found.body)
        return found.properties + found.body if name == "outlinks" else list(found.properties)

    def file_property(self, name: str) -> Any:
        """`task.file.property(name)` as the plugin reads it: by name in any case, null when absent,
        a list without its null items."""
        found = next((v for k, v in (self.properties or {}).items() if k.lower() == name.lower()), None)
        return [v for v in found if v is not None] if isinstance(found, list) else found

    @property
    def description(self) -> str:
        if self._description is None:
            text = self.text
            plain = text.isascii() and "::" not in text and "^" not in text  # no fields, no block id
            self._description = " ".join(text.split()) if plain else tk.parse_fields(text, self.task_format).description
        return self._description

    @property
    def tags(self) -> list[str]:
        if self._tags is None:  # the plugin drops the tag that is the global filter (`#task`), as written
            gf = self.global_filter
            self._tags = [str(t) for t in json.loads(self.tags_json or "[]") if not gf or "#" + str(t) != gf]
        return self._tags

    @property
    def searched_description(self) -> str:
        """What `description includes` and `sort by description` read: the description without
        the global filter's first occurrence (the plugin's removeAsSubstringFrom)."""
        gf = self.global_filter
        return self.description.replace(gf, "", 1).strip() if gf else self.description

    @property
    def description_without_tags(self) -> str:
        """`task.descriptionWithoutTags`: the description without the tags the plugin reads (`#123` too)."""
        return _HASHTAGS.sub("", self.description).strip()

    @property
    def on_completion(self) -> str:
        """`task.onCompletion`: 'delete', 'keep' or '' (the plugin's parseOnCompletionValue)."""
        found = (tk.parse_fields(self.text, self.task_format).on_completion or "").strip().lower()
        return found if found in ("delete", "keep") else ""

    @property
    def original_markdown(self) -> str:
        """`task.originalMarkdown`: the task's line as written (without trailing spaces)."""
        return self.head + self.text

    @property
    def list_marker(self) -> str:
        """`task.listMarker`: `-`, `*`, `+` or a number with `.` or `)`, as written."""
        found = _MARKER.match(self.head)
        return found.group(1) if found else ""

    def status_member(self, name: str) -> str:
        """`task.status.<name>`: type, name, nextSymbol, typeGroupText ('%%2%%TODO': the order of
        `group by status.type`), else the symbol."""
        if name == "typeGroupText":
            return f"%%{TYPE_RANK[self.kind] + 1}%%{self.kind.upper()}"
        return {"type": self.kind.upper(), "name": self.status_name, "nextSymbol": self.next_symbol}.get(
            name, self.status
        )

    def date(self, name: str) -> str | None:
        """A date as written; `happens`: the earliest of start, scheduled and due that names a day
        (the plugin's Task.happens ignores invalid dates), else None."""
        if name == "happens":
            return min((d for d in self.happens() if iso_day_or_none(d) is not None), default=None)
        value: str | None = getattr(self, name)
        return value

    def happens(self) -> list[str]:
        return [d for d in (self.start, self.scheduled, self.due) if d is not None]

    @property
    def priority_rank(self) -> int:
        return PRIORITY_RANK[self.priority or "none"]


def is_recurring(t: TaskRecord) -> bool:
    return t.recurrence is not None


def has_tags(t: TaskRecord) -> bool:
    return bool(t.tags)


def joined_tags(t: TaskRecord) -> str:
    """The task's tags lower-cased, each written with its `#`, one a line."""
    return "\n".join("#" + g.lower() for g in t.tags)


def top_level(t: TaskRecord) -> bool:
    """Not a sub-item, the Tasks plugin's `exclude sub-items` rule: nothing before the list
    marker, or in a blockquote or callout at most one space after the last `>`."""
    return not t.indent or t.indent.endswith((">", "> "))


TOP_LEVEL_SQL = "t.indent = '' OR substr(t.indent, -1) = '>' OR substr(t.indent, -2) = '> '"  # `top_level`


FILE_MEMBERS: dict[str, Callable[[str], str]] = {  # `task.file.<name>` from the note's path
    "path": lambda p: p,
    "pathWithoutExtension": lambda p: p.removesuffix(".md"),
    "folder": lambda p: posixpath.dirname(p) + "/" if "/" in p else "/",
    "filename": posixpath.basename,
    "filenameWithoutExtension": lambda p: posixpath.basename(p).removesuffix(".md"),
    "root": lambda p: p.split("/", 1)[0] + "/" if "/" in p else "/",
}
