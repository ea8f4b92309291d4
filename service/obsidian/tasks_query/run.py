"""A read query run over task columns, in the plugin's documented order: filter (each filter over
what the previous ones kept; those tested task by task — expressions, regular expressions — after
the array operations), sort (the query's keys, then the default order: status type,
urgency, due date, priority, path, line), limit, group (a task is in one group per tag under
`group by tags`), limit within groups.

The answer holds positions, not tasks: only the page the caller shows becomes task objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any, NamedTuple

from service.budget import current
from service.dates import iso_day_or_none
from service.obsidian.task_status import is_open
from service.obsidian.tasks_query.columns import Columns, dense_rank, locale_key, urgency_of
from service.obsidian.tasks_query.dependencies import SEEN, all_tasks
from service.obsidian.tasks_query.expression_methods import size_of
from service.obsidian.tasks_query.expression_values import DATES, _Obj, member_of
from service.obsidian.tasks_query.expressions import Function, js_str
from service.obsidian.tasks_query.filters import evaluate
from service.obsidian.tasks_query.links import hiding
from service.obsidian.tasks_query.query import BASE_ORDER, Query
from service.obsidian.tasks_query.record import PRIORITY_RANK, TYPE_RANK, TaskRecord

if TYPE_CHECKING:
    import numpy as np

    from service.obsidian.tasks_query.columns import Ints
else:
    from service.numpy_lazy import np

_DATES = ("due", "scheduled", "start", "done", "created", "cancelled")
_PRIORITY_NAMES = ("Highest", "High", "Medium", "Normal", "Low", "Lowest")


class Placed(NamedTuple):
    group: tuple[str, ...]
    task: TaskRecord


@dataclass(frozen=True, slots=True)
class Answer:
    """The tasks a query keeps: `rows` (positions in `cols`, in answer order), each row's group
    (`group_of`, an index into `names` and `counts`; empty when the query does not group)."""

    cols: Columns
    rows: Ints
    group_of: Ints
    names: list[tuple[str, ...]]
    counts: list[int]

    def __len__(self) -> int:
        return len(self.rows)

    def placed(self, positions: list[int]) -> list[Placed]:
        """The answer's rows at `positions` as tasks in their groups."""
        records, rows = self.cols.records, self.rows
        if not self.names:
            return [Placed((), records[int(rows[k])]) for k in positions]
        return [Placed(self.names[int(self.group_of[k])], records[int(rows[k])]) for k in positions]


def run_columns(query: Query, cols: Columns, idx: Ints | None = None) -> Answer:
    """`query` over the tasks of `cols` at positions `idx` (all by default), which must be kept in
    the base order (`BASE_ORDER`, then path and line). The sort keys and group names expressions
    give are held until the answer is made: counted in the running budget's `held` meanwhile."""
    budget = current()
    mark = budget.held
    try:
        with all_tasks(cols, idx), hiding(query.unreadable):  # `query.allTasks`, links' destinationPath
            return _run(query, cols, idx)
    finally:
        budget.held = mark


def _run(query: Query, cols: Columns, idx: Ints | None) -> Answer:
    rows = cols.all if idx is None else idx
    seen = SEEN.set(None if idx is None else idx)  # the tasks a dependency filter looks among
    try:
        for f in sorted(query.filters, key=lambda f: f.vector is None):  # task-by-task tests see what is left
            if not len(rows):
                break
            rows = rows[evaluate(f, cols, rows)]
    finally:
        SEEN.reset(seen)
    keys: list[Ints] = [rows]  # np.lexsort compares the last key first; the position breaks ties
    for name, reverse in reversed([*query.sorts, ("status.type", False), ("urgency", False)]):
        function = query.functions.get(name)
        key = cols.sort_key(name, query.today)[rows] if function is None else _function_key(function, query, cols, rows)
        keys.append(-key if reverse else key)
    if len(rows) > 1:
        rows = rows[np.lexsort(tuple(keys))]
    if query.limit is not None:
        rows = rows[: query.limit]
    if not query.groups:
        return Answer(cols, rows, np.empty(0, dtype=np.int64), [], [])
    if any(name in ("tags", "urgency") or name in query.functions for name, _ in query.groups):
        return _group_by_python(query, cols, rows)  # a task in several groups, or groups that depend on today
    return _group(query, cols, rows)


def _group(query: Query, cols: Columns, rows: Ints) -> Answer:
    levels = [(cols.groups(name, _first_group(name)), reverse) for name, reverse in query.groups]
    keys: list[Ints] = [np.arange(len(rows))]
    for (ids, rank, _), reverse in reversed(levels):
        key = rank[ids[rows]]
        keys.append(-key if reverse else key)
    order = np.lexsort(tuple(keys))
    rows = rows[order]
    if not len(rows):
        return Answer(cols, rows, rows, [], [])
    per_level = [ids[rows] for (ids, _, _), _ in levels]
    starts = np.zeros(len(rows), dtype=np.bool_)
    starts[0] = True
    for level in per_level:
        starts[1:] |= level[1:] != level[:-1]
    group_of = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    labels = [found[2] for found, _ in levels]
    names = [tuple(labels[j][int(level[k])] for j, level in enumerate(per_level)) for k in first.tolist()]
    counts = np.diff(np.append(first, len(rows)))
    if query.group_limit is not None:
        within = np.arange(len(rows)) - first[group_of]
        keep = within < query.group_limit
        rows, group_of = rows[keep], group_of[keep]
        counts = np.minimum(counts, query.group_limit)
    return Answer(cols, rows, group_of, names, [int(c) for c in counts])


def _first_group(name: str) -> Callable[[TaskRecord], tuple[Any, str]]:
    return lambda t: group_names(name, t)[0]


def _group_by_python(query: Query, cols: Columns, rows: Ints) -> Answer:
    """Grouping where a task may be in several groups (`group by tags`)."""
    groups: dict[tuple[str, ...], tuple[tuple[Any, ...], list[int]]] = {}
    records = cols.records
    for position in rows.tolist():
        task = records[position]
        combos: list[tuple[tuple[Any, ...], tuple[str, ...]]] = [((), ())]
        for name, reverse in query.groups:
            combos = [
                ((*order, _Rev(key) if reverse else key), (*names, label))
                for order, names in combos
                for key, label in (
                    group_names(name, task, query.today)
                    if name not in query.functions
                    else _function_groups(query, name, task)
                )
            ]
        for order, names in combos:
            found = groups.get(names)
            if found is None:
                groups[names] = (order, [position])
            else:
                found[1].append(position)
    out: list[int] = []
    group_of: list[int] = []
    names_out: list[tuple[str, ...]] = []
    counts: list[int] = []
    for names, (_, positions) in sorted(groups.items(), key=lambda g: g[1][0]):
        if query.group_limit is not None:
            positions = positions[: query.group_limit]
        group_of += [len(names_out)] * len(positions)
        names_out.append(names)
        counts.append(len(positions))
        out += positions
    return Answer(cols, np.array(out, dtype=np.int64), np.array(group_of, dtype=np.int64), names_out, counts)


def _function_key(function: Function, query: Query, cols: Columns, rows: Ints) -> Ints:
    """`sort by function` keys as the plugin compares them (docs Scripting/Custom Sorting.md,
    FunctionField.compareTaskSortKeys): dates (a task's date such as `task.due` as `sort by due`
    sorts: invalid, then by day, then none; a `.moment` by day), then null, then `true` before
    `false`, numbers ascending, texts as `localeCompare` with numbers (`locale_key`), anything else
    by its text. (The plugin refuses to compare keys of two types; they are kept apart here.)"""
    records, today = cols.records, query.today

    def key(value: Any) -> tuple[Any, ...]:
        if isinstance(value, _Obj) and value.kind in DATES:
            written = value.task.date(value.kind)
            day = member_of(value, "moment", 0) if written is not None else None
            return (0, 2, 0) if written is None else (0, 0, 0) if day is None else (0, 1, day.toordinal())
        if isinstance(value, date):
            return (0, 1, value.toordinal())
        if value is None:
            return (1, 0)
        if isinstance(value, bool):
            return (2, 0 if value else 1)
        if isinstance(value, int | float):
            return (3, value)
        if isinstance(value, str):
            return (4, locale_key(value))
        return (5, js_str(value))

    def kept(value: Any) -> Any:
        budget.hold(size_of(value))
        return value

    budget = current()
    return dense_rank([key(kept(function(records[i], today))) for i in rows.tolist()])


def _function_groups(query: Query, name: str, task: TaskRecord) -> list[tuple[Any, str]]:
    """`group by function`: a group per value (per item of an array; a number that is not whole
    written with 5 decimals, the plugin's `toFixed(5)`); none (null, '', []): `(no group)`, the
    plugin's group with no heading, named '': first."""
    value = query.functions[name](task, query.today)
    values = value if isinstance(value, list) else [value]
    if isinstance(value, float) and not value.is_integer() and value == value and abs(value) != float("inf"):
        values = [f"{value:.5f}"]
    labels = [js_str(v) for v in values if v is not None and v != ""]
    current().hold(sum(map(len, labels)) + len(labels))  # kept until the groups are made
    return [((1, locale_key(label)), label) for label in labels] or [((0, ()), "(no group)")]


def group_names(name: str, t: TaskRecord, today: date | None = None) -> list[tuple[Any, str]]:
    """(order, name) of the groups `t` belongs to under `group by <name>` (`urgency` counts from
    `today`; the groups run from the most urgent, named by the score to 2 decimals). The plugin
    orders groups by their names (`localeCompare`, numeric: `locale_key`): `Done` before `Todo`,
    `Not Recurring` before `Recurring`, `(No heading)` and `(No tags)` first."""
    if name == "urgency":
        score = Decimal(urgency_of(t, today or date.today())).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        return [(-score, f"{score:.2f}")]
    if name == "status.name":
        return [(locale_key(t.status_name), t.status_name)]
    if name == "recurrence":
        return [(locale_key(t.recurrence or "None"), t.recurrence or "None")]
    if name == "backlink":  # the file name, then the heading when it says more than the file name
        label = t.path.rpartition("/")[2].removesuffix(".md")
        label += f" > {t.heading}" if t.heading and t.heading != label else ""
        return [(locale_key(label), label)]
    if name in _DATES or name == "happens":
        value = t.date(name)
        if value is None:
            return [((1, ""), f"No {name} date")]
        try:
            label = f"{value} {date.fromisoformat(value).strftime('%A')}"
        except ValueError:
            return [((-1, ""), f"Invalid {name} date")]  # the plugin's '%%0%% Invalid due date': first
        return [((0, value), label)]
    if name == "tags":
        return [(locale_key("#" + tag), "#" + tag) for tag in t.tags] or [(locale_key("(No tags)"), "(No tags)")]
    if name == "priority":
        rank = t.priority_rank
        return [(rank, f"{_PRIORITY_NAMES[rank]} priority")]
    if name == "status":
        closed = not is_open(t.kind)
        return [(not closed, "Done" if closed else "Todo")]
    if name == "status.type":
        return [(TYPE_RANK[t.kind], t.kind.upper())]
    if name == "recurring":
        return [(t.recurrence is not None, "Not Recurring" if t.recurrence is None else "Recurring")]
    if name == "heading":
        return [(locale_key(t.heading or "(No heading)"), t.heading or "(No heading)")]
    if name == "id":  # no id: no heading in the plugin, the group named '' (here `(no group)`): first
        return [((1, locale_key(t.task_id)), t.task_id)] if t.task_id else [((0, ()), "(no group)")]
    path = t.path
    if name == "path":
        label = path.removesuffix(".md")
    elif name == "filename":
        label = path.rpartition("/")[2].removesuffix(".md")
    elif name == "folder":
        label = path.rpartition("/")[0] + "/"
    else:  # root
        label = path.partition("/")[0] + "/" if "/" in path else "/"
    return [(locale_key(label), label)]


def base_sorted(records: list[TaskRecord]) -> list[TaskRecord]:
    """`records` in the base order, as the index hands them over."""
    assert BASE_ORDER == ("status.type", "due", "priority", "path")

    def key(t: TaskRecord) -> tuple[Any, ...]:
        valid = t.due is not None and iso_day_or_none(t.due) is not None  # as order_sql: invalid dates first
        return TYPE_RANK[t.kind], t.due is None, valid, t.due or "", PRIORITY_RANK[t.priority or "none"], t.path, t.line

    return sorted(records, key=key)


def run_query(query: Query, records: list[TaskRecord]) -> list[Placed]:
    """The tasks the query keeps, ordered and placed in their groups (every one a task object)."""
    answer = run_columns(query, Columns(base_sorted(records)))
    return answer.placed(list(range(len(answer))))


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
