"""The evaluation environment of Bases expressions: one query's `Context`, one row's `Env`.

`Context` holds what a query shares: the snapshot, the `this` record, the compiled formulas, a
fixed `now`, and the query's `service.budget.Budget` (steps, time, and `[limits]` for the values
it builds; `spend` raises `compute_budget_exceeded`). `Env` is
one row: its record, its formula cache (each formula runs once per row) and the variables bound
by list lambdas and summaries. Property values are converted from frontmatter once per
snapshot and kept in its columns (`read_property`, `property_column`), not in the records.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, cast

from service.bases import dates
from service.bases.snapshot import UNSET, Record, Snapshot, StoredTexts
from service.bases.values import from_property
from service.budget import DEFAULT_LIMITS, Budget, held_size
from service.settings.limits import LimitsSettings

Fn = Callable[["Env"], Any]
MAX_COLUMNS = 64  # property columns a snapshot keeps (each is one slot per record)


class Context:
    """What one query shares: the snapshot, `this`, compiled formulas and the budget."""

    def __init__(
        self,
        snapshot: Snapshot,
        this: Record | None,
        max_steps: int,
        max_seconds: float,
        limits: LimitsSettings = DEFAULT_LIMITS,
    ) -> None:
        self.snapshot = snapshot
        self.this = this
        self.formulas: dict[str, Fn] = {}
        self.budget = Budget(
            limits,
            max_steps=max_steps,
            max_seconds=max_seconds,
            what="the Bases query",
            hint="Add a narrower filter (a folder, a tag), or simplify formulas over long lists.",
        )
        self.spend: Callable[..., None] = self.budget.spend  # the hot path: no wrapper call per step
        self.now = dates.now()  # one instant per query: now() - now() is 0


_NO_LOCALS: dict[str, Any] = {}


class Env:
    __slots__ = ("ctx", "rec", "fcache", "local")

    def __init__(self, ctx: Context, rec: Record | None, local: dict[str, Any] | None = None) -> None:
        self.ctx = ctx
        self.rec = rec
        self.fcache: dict[str, Any] = {}
        self.local = local or _NO_LOCALS  # read-only: `child` makes a new mapping

    def child(self, local: dict[str, Any]) -> Env:
        env = Env(self.ctx, self.rec, {**self.local, **local})
        env.fcache = self.fcache
        return env

    def prop(self, key: str) -> Any:
        rec = self.rec
        if rec is None:
            return None
        return read_property(rec, key, self.ctx.snapshot)

    def formula(self, name: str) -> Any:
        cache = self.fcache
        if name in cache:
            return cache[name]
        fn = self.ctx.formulas.get(name)
        budget = self.ctx.budget
        before = budget.held
        value = fn(self) if fn is not None else None
        budget.held = before  # what it built is given back; its value is cached with the row
        budget.keep(held_size(value))
        cache[name] = value
        return value


def read_property(rec: Record, key: str, snapshot: Snapshot) -> Any:
    """Property `key` of `rec`, converted once per snapshot: kept in the snapshot's column when
    `rec` is one of its records (a record of another snapshot is converted each time). A new
    column is converted whole (`property_column`): the texts the records do not keep are read
    in one statement, not one note at a time."""
    i = rec.i
    records = snapshot.records
    if i < 0 or i >= len(records) or records[i] is not rec:
        return _convert(rec, key, snapshot)
    col = snapshot.columns.get(key)
    if col is None:
        col = property_column(snapshot, key)
    value = col[i]
    if value is UNSET:
        value = col[i] = _convert(rec, key, snapshot)
    return value


def property_column(snapshot: Snapshot, key: str) -> list[Any]:
    """Property `key` of every record of the snapshot, in record order, converted once per
    snapshot (a filter, sort, group or summary over it then reads a list, not 10^4 records)."""
    col = snapshot.columns.get(key)
    if col is None:
        col = _new_column(snapshot, key)
    records = snapshot.records
    stored: dict[int, StoredTexts] = {}
    waiting: list[int] = []  # records whose text is in the index
    for i, value in enumerate(col):
        if value is UNSET:
            rec = records[i]
            raw = rec.raw_props
            if type(raw) is str or type(raw) is dict:
                col[i] = _convert(rec, key, snapshot)
            else:
                stored.setdefault(id(raw), cast(StoredTexts, raw))
                waiting.append(i)
    by_path = snapshot.by_path
    for texts in stored.values():
        for path, text in texts.having(key):  # the notes whose text may hold the key
            held = by_path.get(path)
            if held is not None and held.raw_props is texts and col[held.i] is UNSET:
                col[held.i] = _from_text(text, key, snapshot, path)
    for i in waiting:
        if col[i] is UNSET:
            col[i] = None  # no such key in its text
    return col


def record_properties(rec: Record, snapshot: Snapshot) -> dict[str, Any]:
    """Every property of `rec`, converted (the snapshot's columns where they hold the value):
    its frontmatter read once, and no column made for a key (a vault may have more keys than
    a snapshot keeps columns)."""
    raw = rec.props
    i = rec.i
    mine = 0 <= i < len(snapshot.records) and snapshot.records[i] is rec
    out: dict[str, Any] = {}
    for key, value in raw.items():
        col = snapshot.columns.get(key) if mine else None
        if col is not None and col[i] is not UNSET:
            out[key] = col[i]
            continue
        converted = snapshot.share(from_property(value, snapshot, rec.path)) if value is not None else None
        if col is not None:
            col[i] = converted
        out[key] = converted
    return out


def _new_column(snapshot: Snapshot, key: str) -> list[Any]:
    columns = snapshot.columns
    while len(columns) >= MAX_COLUMNS:  # a query over every property of a wide vault: drop the oldest
        columns.pop(next(iter(columns)), None)
    col = columns[key] = [UNSET] * len(snapshot.records)
    return col


def _convert(rec: Record, key: str, snapshot: Snapshot) -> Any:
    raw = rec.raw_props
    if type(raw) is dict:
        value = raw.get(key)
        return snapshot.share(from_property(value, snapshot, rec.path)) if value is not None else None
    return _from_text(raw if type(raw) is str else cast(StoredTexts, raw).text(rec.path), key, snapshot, rec.path)


def _from_text(text: str, key: str, snapshot: Snapshot, source: str) -> Any:
    if text == "{}" or f'"{key}"' not in text and "\\" not in text:
        return None  # not there: nothing to decode
    value = json.loads(text).get(key)
    if value is None:
        return None
    return snapshot.share(from_property(value, snapshot, source))
