"""The Tasks plugin's dependency filters: `is blocked`, `is not blocked`, `is blocking`,
`is not blocking`, `has id`, `no id`, `has depends on`, `no depends on` (`id includes …` is a text
filter, `filters.py`).

As the plugin documents them, over every task of the vault, not only those the query keeps:
a task is blocked when it is not done (to-do or in progress) and depends on (⛔ / `[dependsOn:: ]`)
the id (🆔 / `[id:: ]`) of a task that is not done either; it is blocking when it is not done, has
an id, and a task that is not done depends on it. Only direct dependencies count. `is not …` keeps
every other task (done ones included). The vault's tasks here are those the caller may read
(`SEEN`, set by `run.run_columns` to the positions it starts from): a task in a note the caller
may not read neither blocks nor is named.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from service.obsidian.tasks_query.record import OPEN_TYPES, TaskRecord

if TYPE_CHECKING:
    import numpy as np

    from service.obsidian.tasks_query.columns import Bools, Columns, Ints
else:
    from service.numpy_lazy import np

SEEN: ContextVar[Ints | None] = ContextVar("tasks_query_seen", default=None)  # None: every task
# `query.allTasks` of a running query: the columns, the positions it starts from (None: all), and
# the blocked / blocking tests built over them the first time an expression asks.
_AMONG: ContextVar[tuple[Columns, Ints | None, dict[str, Callable[[TaskRecord], bool]]] | None] = ContextVar(
    "tasks_query_among", default=None
)


class AllTasks:
    """`query.allTasks`: only read as the argument of `task.isBlocked()` / `task.isBlocking()`."""


ALL_TASKS = AllTasks()


@contextmanager
def all_tasks(cols: Columns, idx: Ints | None) -> Iterator[None]:
    """What `query.allTasks` names while a query runs: the tasks at `idx` of `cols` (`SEEN`'s)."""
    token = _AMONG.set((cols, idx, {}))
    try:
        yield
    finally:
        _AMONG.reset(token)


def relation_of(t: TaskRecord, kind: str) -> bool:
    """`task.isBlocked(query.allTasks)` (`kind` 'blocked') or `task.isBlocking(...)`: as the
    `is blocked` / `is blocking` filters read it, among the running query's tasks."""
    found = _AMONG.get()
    if found is None:  # evaluated outside a run: the task alone
        return _test(kind, [t])(t)
    cols, idx, tests = found
    test = tests.get(kind)
    if test is None:
        among = cols.records if idx is None else [cols.records[i] for i in idx.tolist()]
        test = tests[kind] = _test(kind, among)
    return test(t)


_LINE = re.compile(r"is (not )?(blocked|blocking)|(has|no) (id|depends on)", re.IGNORECASE)


def depends_on(t: TaskRecord) -> list[str]:
    return [str(d) for d in json.loads(t.depends_on_json or "[]") if str(d)]


def has_id(t: TaskRecord) -> bool:
    return bool(t.task_id)


Test = Callable[[TaskRecord], bool]
Vector = Callable[["Columns", "Ints"], "Bools"]


def dependency_filter(text: str) -> tuple[str, Test, Vector] | None:
    """The filter of one of the lines above (`text` with single spaces) as its explanation, its
    test of one task and its test over the columns (`filters.Filter`); None for another line."""
    m = _LINE.fullmatch(text)
    if m is None:
        return None
    lower = text.lower()
    if m.group(3) is not None:
        has = m.group(3).lower() == "has"
        field = m.group(4).lower()
        fact: Test = has_id if field == "id" else (lambda t: bool(depends_on(t)))
        name = f"has {field}"
        return lower, lambda t: fact(t) == has, lambda cols, idx: cols.flags(name, fact)[idx] == has
    keep = m.group(1) is None
    kind = m.group(2).lower()

    def vector(cols: Columns, idx: Ints) -> Bools:
        found = _relation(cols, kind, SEEN.get())[idx]
        return found if keep else ~found

    def task_by_task(t: TaskRecord) -> bool:  # the task by itself; queries run `vector`, over the vault
        return _test(kind, [t])(t) == keep

    return lower, task_by_task, vector


def _relation(cols: Columns, kind: str, seen: Ints | None) -> Bools:
    """Whether each task of `cols` is blocked (or blocking) among the tasks at `seen` (all: kept
    with the columns, as the other per-task facts are)."""
    if seen is None or len(seen) == cols.n:
        return cols.flags(f"dependency {kind}", _test(kind, cols.records))
    among = [cols.records[i] for i in seen.tolist()]
    out = np.zeros(cols.n, dtype=np.bool_)
    out[seen] = np.fromiter(map(_test(kind, among), among), np.bool_, len(among))
    return out


def _test(kind: str, among: list[TaskRecord]) -> Callable[[TaskRecord], bool]:
    """Whether a task is blocked (or blocking) given the tasks `among`: the ids are gathered the
    first time the test runs."""
    found: list[set[str]] = []

    def ids() -> set[str]:
        if not found:
            open_among = [t for t in among if t.kind in OPEN_TYPES]
            if kind == "blocked":
                found.append({t.task_id for t in open_among if t.task_id})
            else:
                found.append({d for t in open_among for d in depends_on(t)})
        return found[0]

    if kind == "blocked":
        return lambda t: t.kind in OPEN_TYPES and any(d in ids() for d in depends_on(t))
    return lambda t: t.kind in OPEN_TYPES and bool(t.task_id) and t.task_id in ids()
