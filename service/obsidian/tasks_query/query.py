"""A Tasks query block read whole, and the order the index hands tasks over in.

Reading: one instruction a line; a line ending in `\\` goes on with the next; blank lines and
`#` comments skipped. Filters (all of them must hold), `sort by <field> [reverse]`,
`group by <field> [reverse]`, `limit [to] N [tasks]`, `limit groups [to] N [tasks]`, `explain`;
what only changes how Obsidian draws the list (`hide …`, `show …`, `short mode`, `full mode`,
`ignore global query`) is accepted and set aside; placeholders (`{{query.file.path}}`) and
presets (`preset this_file`) are expanded first (`placeholders.py`). A line that does not read raises
`QueryError` with its 1-based line number and the column; `filter|sort|group by function`
(JavaScript) is refused, never run. Running is `run.py`'s.

Orders: the default one is the plugin's (status type, urgency, due date, priority, path, then
line); task records are kept in the base order (the same without urgency, which depends on the
day), so that a task's position there is the last key of every order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from service.markdown.fences import unfence
from service.obsidian.task_status import is_open
from service.obsidian.tasks_query.boolean import is_boolean, parse_boolean
from service.obsidian.tasks_query.columns import URGENCY_PRIORITY, URGENCY_SCHEDULED, URGENCY_STARTS_LATER
from service.obsidian.tasks_query.expressions import Function
from service.obsidian.tasks_query.filters import Context, Filter, QueryError, parse_filter, read_function
from service.obsidian.tasks_query.placeholders import Placeholders
from service.obsidian.tasks_query.record import PRIORITY_RANK, TYPE_RANK

SORT_FIELDS = ("status", "status.type", "status.name", "urgency", "due", "scheduled", "start", "happens", "done",
               "created", "cancelled", "priority", "path", "filename", "description", "heading", "tag",
               "recurring", "id", "random")  # fmt: skip
GROUP_FIELDS = ("status", "status.type", "status.name", "due", "scheduled", "start", "happens", "done", "created",
                "cancelled", "priority", "path", "folder", "filename", "root", "heading", "tags", "recurring",
                "recurrence", "backlink", "urgency", "id")  # fmt: skip
_IGNORED = re.compile(r"(hide|show) .+|short mode|full mode|short|full|ignore global query", re.IGNORECASE)
_LIMIT = re.compile(r"limit(?: (groups))?(?: to)? (\d+)(?: tasks?)?", re.IGNORECASE)
_FIELD_AT = re.compile(r"\s*(?:sort|group)\s+by\s+", re.IGNORECASE)
_ORDER = re.compile(r"(sort|group) by (\S+)(?: (reverse))?", re.IGNORECASE)
_TAG_ORDER = re.compile(r"sort by tag( reverse)? ?(\d+)")  # the plugin's `sort by tag [reverse] N`: the Nth tag
_DATES = ("due", "scheduled", "start", "done", "created", "cancelled")
_PRIORITY_NAMES = ("Highest", "High", "Medium", "Normal", "Low", "Lowest")


class LineError(Exception):
    def __init__(self, message: str, line: int, text: str, column: int) -> None:
        super().__init__(message)
        self.message, self.line, self.text, self.column = message, line, text, column


@dataclass
class Query:
    today: date = date(1970, 1, 1)  # the day relative dates and urgency count from
    filters: list[Filter] = field(default_factory=list)
    sorts: list[tuple[str, bool]] = field(default_factory=list)
    groups: list[tuple[str, bool]] = field(default_factory=list)
    limit: int | None = None
    group_limit: int | None = None
    explain: bool = False
    ignored: list[str] = field(default_factory=list)
    functions: dict[str, Function] = field(default_factory=dict)  # `sort|group by function` keys by name
    unreadable: frozenset[str] = frozenset()  # link targets the caller may not read (`links.hiding`)

    @property
    def reads_headings(self) -> bool:
        """A filter, sort key, group or expression reads the tasks' headings."""
        keys = (name for name, _ in (*self.sorts, *self.groups))
        return (
            any(f.heading for f in self.filters)
            or any(key in ("heading", "backlink") for key in keys)
            or any("heading" in f.source.lower() for f in self.functions.values())  # also task.hasHeading
        )

    @property
    def reads_properties(self) -> bool:
        """An expression reads the notes' properties (`task.file.property('x')`, `hasProperty`)."""
        sources = [f.explain for f in self.filters] + [f.source for f in self.functions.values()]
        return any("property(" in s or "Property(" in s for s in sources)

    @property
    def reads_links(self) -> bool:
        """An expression reads links (`task.outlinks`, `task.file.outlinks…`)."""
        sources = [f.explain for f in self.filters] + [f.source for f in self.functions.values()]
        return any("outlinks" in s for s in sources)

    def sql(self) -> tuple[list[str], list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        for f in self.filters:
            if f.sql is not None:
                clauses.append(f.sql[0])
                params.extend(f.sql[1])
        return clauses, params

    def describe(self) -> list[str]:
        out = [f.explain for f in self.filters]
        for kind, keys in (("sort", self.sorts), ("group", self.groups)):
            for n, r in keys:
                shown = f"function {self.functions[n].source}" if n in self.functions else n
                out.append(f"{kind} by {shown}{' reverse' if r else ''}")
        if self.limit is not None:
            out.append(f"limit {self.limit}")
        if self.group_limit is not None:
            out.append(f"limit groups {self.group_limit}")
        return out


def _lines(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if pending is not None:
            line = pending[1] + " " + line
            number = pending[0]
            pending = None
        if line.endswith("\\"):
            pending = (number, line[:-1].rstrip())
            continue
        if line and not line.startswith("#"):
            out.append((number, line))
    if pending is not None and pending[1]:
        out.append(pending)
    return out


def parse_query(text: str, ctx: Context, places: Placeholders | None = None) -> Query:
    """The query `text` states; `places`: what its placeholders and presets expand to
    (`placeholders.py`; none given: a placeholder is an error, the plugin's default presets)."""
    text = unfence(text, "tasks")  # a ```tasks block pasted whole
    query = Query(today=ctx.today)
    places = places or Placeholders()
    for number, line in _lines(text):
        try:
            _expanded(query, line, replace(ctx, line=number, line_text=line), places, 0)
        except QueryError as e:
            raise LineError(e.message, number, line, e.column) from None
    return query


def _expanded(query: Query, line: str, ctx: Context, places: Placeholders, depth: int) -> None:
    """The instructions of one line once its placeholders and presets are expanded, read into `query`."""
    expanded = places.expand(line)
    lines = [line] if expanded == line else [text for _, text in _lines(expanded)]
    for one in lines:
        preset = places.preset(" ".join(one.split()), depth)
        if preset is None:
            _instruction(query, one, ctx)
            continue
        for _, text in _lines(preset):
            _expanded(query, text, ctx, places, depth + 1)


def _instruction(query: Query, line: str, ctx: Context) -> None:
    lower = " ".join(line.lower().split())
    if lower == "explain":
        query.explain = True
    elif _IGNORED.fullmatch(lower):
        query.ignored.append(line)
    elif m := _LIMIT.fullmatch(lower):
        if m.group(1):
            query.group_limit = int(m.group(2))
        else:
            query.limit = int(m.group(2))
    elif lower.startswith(("sort by", "group by")):
        m = _ORDER.fullmatch(lower)
        kind = "sort" if lower.startswith("sort") else "group"
        allowed = SORT_FIELDS if kind == "sort" else GROUP_FIELDS
        at = _FIELD_AT.match(line)
        column = at.end() + 1 if at else 1
        if (found := read_function(line, 1, ctx)) is not None:
            name = f"function {len(query.functions) + 1}"
            query.functions[name] = found[0]
            (query.sorts if kind == "sort" else query.groups).append((name, found[1]))
            return
        if (n := _TAG_ORDER.fullmatch(lower)) is not None and int(n.group(2)) >= 1:
            query.sorts.append(("tag" if int(n.group(2)) == 1 else f"tag {int(n.group(2))}", bool(n.group(1))))
            return
        if m is None or m.group(2) not in allowed:
            raise QueryError(f"{kind} by takes one of: {', '.join(allowed)} (then 'reverse' if wanted)", column)
        (query.sorts if kind == "sort" else query.groups).append((m.group(2), bool(m.group(3))))
    elif lower.startswith("limit"):
        raise QueryError("limit takes a number: 'limit 10' or 'limit to 10 tasks'", 1)
    elif is_boolean(line):
        query.filters.append(parse_boolean(line, ctx))
    else:
        query.filters.append(parse_filter(line, ctx))


# -- the index's order ---------------------------------------------------------------------

BASE_ORDER = ("status.type", "due", "priority", "path")  # then line: how task records are kept
DEFAULT_ORDER = ("status.type", "urgency", "due", "priority", "path")  # the plugin's default sort
_DATES = ("due", "scheduled", "start", "done", "created", "cancelled")
_SQL_SORTABLE = frozenset({"status", "status.type", "urgency", *_DATES, "priority", "recurring"})  # path: localeCompare
_PRIORITY_URGENCY = " ".join(f"WHEN '{p}' THEN {v}" for p, v in URGENCY_PRIORITY.items() if p != "none")
_URGENCY_SQL = (
    "(CASE WHEN date(t.due) = t.due THEN (MIN(MAX(CAST(julianday(?) - julianday(t.due) AS INTEGER), -14), 7) + 14)"
    " * 960 + 5040 ELSE 0 END"
    f" + CASE t.priority {_PRIORITY_URGENCY}"
    f" ELSE {URGENCY_PRIORITY['none']} END"
    f" + CASE WHEN date(t.scheduled) = t.scheduled AND t.scheduled <= ? THEN {URGENCY_SCHEDULED} ELSE 0 END"
    f" + CASE WHEN date(t.start) = t.start AND t.start > ? THEN {URGENCY_STARTS_LATER} ELSE 0 END)"
)


def order_sql(
    query: Query, type_of: dict[str, str], base: bool = False
) -> tuple[str, tuple[Any, ...], list[tuple[str, bool]]]:
    """ORDER BY for the index (the query's keys when the index can order by all of them, then the
    default order — or the base order the records are kept in —, path and line), its parameters,
    and the keys left to sort by outside the index."""
    in_sql = all(name in _SQL_SORTABLE for name, _ in query.sorts)  # never a `sort by function` key
    keys = [*(query.sorts if in_sql else []), *((name, False) for name in (BASE_ORDER if base else DEFAULT_ORDER))]
    closed = [c for c, kind in type_of.items() if not is_open(kind)]
    ranks = [(c, TYPE_RANK[kind]) for c, kind in type_of.items()]
    today = query.today.isoformat()
    parts: list[str] = []
    params: list[Any] = []
    for name, reverse in keys:
        how = " DESC" if reverse else ""
        if name in _DATES:  # no date last, an invalid one (2026-02-30) first, as the plugin sorts them
            parts += [f"t.{name} IS NULL{how}", f"(date(t.{name}) IS t.{name}){how}", f"t.{name}{how}"]
        elif name == "status":
            parts.append(f"t.status IN ({','.join('?' * len(closed))}){how}" if closed else "0")
            params += closed
        elif name == "status.type":
            whens = " ".join("WHEN ? THEN ?" for _ in ranks)
            parts.append(f"CASE t.status {whens} ELSE {TYPE_RANK['todo']} END{how}" if ranks else "0")
            params += [v for pair in ranks for v in pair]
        elif name == "urgency":  # most urgent first
            parts.append(f"{_URGENCY_SQL}{'' if reverse else ' DESC'}")
            params += [today, today, today]
        elif name == "priority":
            whens = " ".join(f"WHEN '{p}' THEN {r}" for p, r in PRIORITY_RANK.items() if p != "none")
            parts.append(f"CASE t.priority {whens} ELSE {PRIORITY_RANK['none']} END{how}")
        elif name == "recurring":
            parts.append(f"t.recurrence IS NULL{how}")
        else:
            parts.append(f"n.path{how}")
    parts += ["n.path", "t.line"]
    return ", ".join(parts), tuple(params), ([] if in_sql else list(query.sorts))
