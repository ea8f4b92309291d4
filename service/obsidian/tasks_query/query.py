"""A Tasks query block read whole, and run over task records.

Reading: one instruction a line; a line ending in `\\` goes on with the next; blank lines and
`#` comments skipped. Filters (all of them must hold), `sort by <field> [reverse]`,
`group by <field> [reverse]`, `limit [to] N [tasks]`, `limit groups [to] N [tasks]`, `explain`;
what only changes how Obsidian draws the list (`hide …`, `show …`, `short mode`, `full mode`,
`ignore global query`) is accepted and set aside. A line that does not read raises
`QueryError` with its 1-based line number and the column.

Running, in the plugin's documented order: filter, sort (the caller's keys, then status type, due
date, priority, path and line as the default order does), limit, group (a task is in one group
per tag under `group by tags`), limit within groups.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, NamedTuple

from service.obsidian.tasks_query.boolean import is_boolean, parse_boolean
from service.obsidian.tasks_query.filters import Context, Filter, QueryError, parse_filter
from service.obsidian.tasks_query.record import PRIORITY_RANK, TYPE_RANK, TaskRecord

SORT_FIELDS = ("status", "status.type", "due", "scheduled", "start", "happens", "done", "created", "cancelled",
               "priority", "path", "filename", "description", "heading", "tag", "recurring")  # fmt: skip
GROUP_FIELDS = ("status", "status.type", "due", "scheduled", "start", "happens", "done", "created", "cancelled",
                "priority", "path", "folder", "filename", "root", "heading", "tags", "recurring")  # fmt: skip
_IGNORED = re.compile(r"(hide|show) .+|short mode|full mode|short|full|ignore global query", re.IGNORECASE)
_LIMIT = re.compile(r"limit(?: (groups))?(?: to)? (\d+)(?: tasks?)?", re.IGNORECASE)
_ORDER = re.compile(r"(sort|group) by (\S+)(?: (reverse))?", re.IGNORECASE)
_DATES = ("due", "scheduled", "start", "done", "created", "cancelled")
_PRIORITY_NAMES = ("Highest", "High", "Medium", "Normal", "Low", "Lowest")


class LineError(Exception):
    def __init__(self, message: str, line: int, text: str, column: int) -> None:
        super().__init__(message)
        self.message, self.line, self.text, self.column = message, line, text, column


@dataclass
class Query:
    filters: list[Filter] = field(default_factory=list)
    sorts: list[tuple[str, bool]] = field(default_factory=list)
    groups: list[tuple[str, bool]] = field(default_factory=list)
    limit: int | None = None
    group_limit: int | None = None
    explain: bool = False
    ignored: list[str] = field(default_factory=list)

    @property
    def needs_heading(self) -> bool:
        return any(f.heading for f in self.filters) or any(name == "heading" for name, _ in (*self.sorts, *self.groups))

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
        out += [f"sort by {n}{' reverse' if r else ''}" for n, r in self.sorts]
        out += [f"group by {n}{' reverse' if r else ''}" for n, r in self.groups]
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


def parse_query(text: str, ctx: Context) -> Query:
    query = Query()
    for number, line in _lines(text):
        try:
            _instruction(query, line, ctx)
        except QueryError as e:
            raise LineError(e.message, number, line, e.column) from None
    return query


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
        if m is None or m.group(2) not in allowed:
            raise QueryError(f"{kind} by takes one of: {', '.join(allowed)} (then 'reverse' if wanted)", 9)
        (query.sorts if kind == "sort" else query.groups).append((m.group(2), bool(m.group(3))))
    elif lower.startswith("limit"):
        raise QueryError("limit takes a number: 'limit 10' or 'limit to 10 tasks'", 1)
    elif is_boolean(line):
        query.filters.append(parse_boolean(line, ctx))
    else:
        query.filters.append(parse_filter(line, ctx))


# -- running ---------------------------------------------------------------------------------


def _date_key(name: str) -> Callable[[TaskRecord], Any]:
    if name == "happens":
        return lambda t: (not t.happens(), min(t.happens(), default=""))
    return lambda t: (t.date(name) is None, t.date(name) or "")


def _sort_key(name: str) -> Callable[[TaskRecord], Any]:
    if name in (*_DATES, "happens"):
        return _date_key(name)
    keys: dict[str, Callable[[TaskRecord], Any]] = {
        "status": lambda t: t.kind not in ("todo", "in_progress"),
        "status.type": lambda t: TYPE_RANK[t.kind],
        "priority": lambda t: t.priority_rank,
        "path": lambda t: t.path,
        "filename": lambda t: posixpath.basename(t.path).lower(),
        "description": lambda t: t.description.lower(),
        "heading": lambda t: (t.heading is None, (t.heading or "").lower()),
        "tag": lambda t: (not t.tags, t.tags[0].lower() if t.tags else ""),
        "recurring": lambda t: t.recurrence is None,
    }
    return keys[name]


_DEFAULT_ORDER = ("status.type", "due", "priority", "path")
_SQL_SORTABLE = frozenset({"status", "status.type", *_DATES, "priority", "path", "recurring"})


def order_sql(query: Query, type_of: dict[str, str]) -> tuple[str, tuple[Any, ...], list[tuple[str, bool]]]:
    """ORDER BY for the index (the query's keys when the index can order by all of them, then the
    default order, path and line), its parameters, and the keys left to sort by in Python."""
    in_sql = all(name in _SQL_SORTABLE for name, _ in query.sorts)
    keys = [*(query.sorts if in_sql else []), *((name, False) for name in _DEFAULT_ORDER)]
    closed = [c for c, kind in type_of.items() if kind not in ("todo", "in_progress")]
    ranks = [(c, TYPE_RANK[kind]) for c, kind in type_of.items()]
    parts: list[str] = []
    params: list[Any] = []
    for name, reverse in keys:
        how = " DESC" if reverse else ""
        if name in _DATES:
            parts += [f"t.{name} IS NULL{how}", f"t.{name}{how}"]
        elif name == "status":
            parts.append(f"t.status IN ({','.join('?' * len(closed))}){how}" if closed else "0")
            params += closed
        elif name == "status.type":
            whens = " ".join("WHEN ? THEN ?" for _ in ranks)
            parts.append(f"CASE t.status {whens} ELSE {TYPE_RANK['todo']} END{how}" if ranks else "0")
            params += [v for pair in ranks for v in pair]
        elif name == "priority":
            whens = " ".join(f"WHEN '{p}' THEN {r}" for p, r in PRIORITY_RANK.items() if p != "none")
            parts.append(f"CASE t.priority {whens} ELSE {PRIORITY_RANK['none']} END{how}")
        elif name == "recurring":
            parts.append(f"t.recurrence IS NULL{how}")
        else:
            parts.append(f"n.path{how}")
    parts += ["n.path", "t.line"]
    return ", ".join(parts), tuple(params), ([] if in_sql else list(query.sorts))


def sort_records(records: list[TaskRecord], sorts: list[tuple[str, bool]], presorted: bool = False) -> list[TaskRecord]:
    """Ordered by the query's keys, then the default order; one sort on a tuple of keys up to the
    last `reverse` key, which (and each before it) takes a stable pass of its own. `presorted`:
    `records` come in the default order already, and only `sorts` are applied."""
    if presorted:
        ordered = list(records)
        for name, reverse in reversed(sorts):
            ordered.sort(key=_sort_key(name), reverse=reverse)
        return ordered
    names = [*[n for n, _ in sorts], *_DEFAULT_ORDER]
    flags = [*[r for _, r in sorts], *[False] * len(_DEFAULT_ORDER)]
    split = max((i + 1 for i, r in enumerate(flags) if r), default=0)
    tail = [_sort_key(n) for n in names[split:]]
    ordered = sorted(records, key=lambda t: (*(k(t) for k in tail), t.path, t.line))
    for name, reverse in reversed(list(zip(names[:split], flags[:split], strict=True))):
        ordered.sort(key=_sort_key(name), reverse=reverse)
    return ordered


def _group_names(name: str, t: TaskRecord) -> list[tuple[Any, str]]:
    """(order, name) of the groups `t` belongs to under `group by <name>`."""
    if name in _DATES or name == "happens":
        value = min(t.happens(), default=None) if name == "happens" else t.date(name)
        if value is None:
            return [((1, ""), f"No {name} date")]
        try:
            label = f"{value} {date.fromisoformat(value).strftime('%A')}"
        except ValueError:
            label = f"Invalid {name} date"
        return [((0, value), label)]
    if name == "tags":
        return [((0, tag.lower()), "#" + tag) for tag in t.tags] or [((1, ""), "(No tags)")]
    if name == "priority":
        rank = t.priority_rank
        return [(rank, f"{_PRIORITY_NAMES[rank]} priority")]
    if name == "status":
        closed = t.kind not in ("todo", "in_progress")
        return [(closed, "Done" if closed else "Todo")]
    if name == "status.type":
        return [(TYPE_RANK[t.kind], t.kind.upper())]
    if name == "recurring":
        return [(t.recurrence is None, "Not Recurring" if t.recurrence is None else "Recurring")]
    if name == "heading":
        return [((t.heading is None, t.heading or ""), t.heading or "(No heading)")]
    path = t.path
    if name == "path":
        label = path.removesuffix(".md")
    elif name == "filename":
        label = path.rpartition("/")[2].removesuffix(".md")
    elif name == "folder":
        label = path.rpartition("/")[0] + "/"
    else:  # root
        label = path.partition("/")[0] + "/" if "/" in path else "/"
    return [(label.lower(), label)]


class Placed(NamedTuple):
    group: tuple[str, ...]
    task: TaskRecord


def run_query(
    query: Query, records: list[TaskRecord], python_sorts: list[tuple[str, bool]] | None = None
) -> list[Placed]:
    """The tasks the query keeps, ordered and (when it groups) placed in their groups. With
    `python_sorts`, `records` come ordered by `order_sql` and only those keys are left to apply."""
    kept = list(records)
    for f in query.filters:  # one filter at a time: each pass tests only what the last one kept
        test = f.test
        kept = [t for t in kept if test(t)]
    kept = sort_records(kept, query.sorts) if python_sorts is None else sort_records(kept, python_sorts, True)
    if query.limit is not None:
        kept = kept[: query.limit]
    if not query.groups:
        return [Placed((), t) for t in kept]
    # each group's tasks in task order; then the groups in their order
    groups: dict[tuple[str, ...], tuple[tuple[Any, ...], list[TaskRecord]]] = {}
    for task in kept:
        combos: list[tuple[tuple[Any, ...], tuple[str, ...]]] = [((), ())]
        for name, reverse in query.groups:
            combos = [
                ((*order, _Rev(key) if reverse else key), (*names, label))
                for order, names in combos
                for key, label in _group_names(name, task)
            ]
        for order, names in combos:
            found = groups.get(names)
            if found is None:
                groups[names] = (order, [task])
            else:
                found[1].append(task)
    out: list[Placed] = []
    for names, (_, tasks) in sorted(groups.items(), key=lambda g: g[1][0]):
        if query.group_limit is not None:
            tasks = tasks[: query.group_limit]
        out.extend(Placed(names, t) for t in tasks)
    return out


class _Rev:
    """A sort key in reverse order (group by … reverse)."""

    __slots__ = ("key",)

    def __init__(self, key: Any) -> None:
        self.key = key

    def __lt__(self, other: _Rev) -> bool:
        return bool(other.key < self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Rev) and bool(self.key == other.key)

    def __hash__(self) -> int:
        return hash(self.key)
