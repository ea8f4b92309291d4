"""Property queries over `note_properties` and `notes.properties`: filters, keys, values.

Filter semantics (every filter must hold; `key` is matched exactly as written in frontmatter):
    exists      the note has the key (an empty value counts: `status:` exists)
    not_exists  the note lacks the key
    ==          some value equals: strings case-insensitively, numbers/booleans by value,
                dates by instant (`2026-01-05` equals a date property of that day); on a list
                property any item may match; a list `value` must equal the whole list
    !=          the note has the key and no value equals (notes without the key are excluded;
                add a `not_exists` filter in another query to find those)
    contains    a string contains the text (case-insensitive), or a list has an equal item
    < <= > >=   numbers, dates/datetimes (compared as instants) and strings (lexicographic)
A value of the wrong type for the op is a `validation_error`, never an SQL error. All
statements are parameterised; read permission is applied before any count or page.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from service.errors import ValidationFailed
from service.obsidian.canvas import not_canvas
from service.retrieval.text import folder_clause

Op = Literal["==", "!=", "contains", "<", "<=", ">", ">=", "exists", "not_exists"]
OPS: tuple[str, ...] = ("==", "!=", "contains", "<", "<=", ">", ">=", "exists", "not_exists")
_CMP = {"<": "<", "<=": "<=", ">": ">", ">=": ">="}


@dataclass(frozen=True, slots=True)
class Filter:
    key: str
    op: str
    value: Any = None


@dataclass(frozen=True, slots=True)
class NoteRow:
    """A matching note; tags and properties stay JSON text until a page needs them."""

    note_id: int
    path: str
    title: str
    mtime: float
    tags_json: str
    properties_json: str

    @property
    def tags(self) -> list[str]:
        return list(json.loads(self.tags_json or "[]"))

    @property
    def properties(self) -> dict[str, Any]:
        return dict(json.loads(self.properties_json or "{}"))


def instant(value: str) -> float | None:
    """Unix seconds of an ISO date or datetime string (naive = UTC), else None."""
    try:
        if len(value) == 10:
            d = dt.date.fromisoformat(value)
            return dt.datetime(d.year, d.month, d.day, tzinfo=dt.UTC).timestamp()
        if len(value) > 10 and "T" in value:
            t = dt.datetime.fromisoformat(value)
            return (t if t.tzinfo else t.replace(tzinfo=dt.UTC)).timestamp()
    except ValueError:
        return None
    return None


def _bad(flt: Filter, why: str) -> ValidationFailed:
    return ValidationFailed(f"filter on {flt.key!r}: {why}", details={"field": "filters", "key": flt.key, "op": flt.op})


def _scalar_condition(flt: Filter) -> tuple[str, list[Any]]:
    """SQL over one note_properties row (alias p) for ==, contains and comparisons."""
    v = flt.value
    if flt.op in ("==", "!="):
        if isinstance(v, bool):
            return "(p.value_type = 'boolean' AND p.value_num = ?)", [1.0 if v else 0.0]
        if isinstance(v, (int, float)):
            return "(p.value_type = 'number' AND p.value_num = ?)", [float(v)]
        if v is None:
            return "(p.value_type = 'null')", []
        if isinstance(v, str):
            when = instant(v)
            if when is not None:
                return "((p.value_type IN ('date','datetime') AND p.value_num = ?) OR p.value_lower = ?)", [
                    when,
                    v.lower(),
                ]
            return "(p.value_lower = ?)", [v.lower()]
        raise _bad(flt, "value must be a string, number, boolean, null or a list of those")
    if flt.op == "contains":
        if isinstance(v, (bool, int, float)):
            return _scalar_condition(Filter(flt.key, "==", v))
        if not isinstance(v, str) or v == "":
            raise _bad(flt, "`contains` needs a non-empty string, number or boolean")
        escaped = v.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return (
            "((p.list_index IS NULL AND p.value_type = 'string' AND p.value_lower LIKE ? ESCAPE '\\')"
            " OR (p.list_index IS NOT NULL AND p.value_lower = ?))",
            [f"%{escaped}%", v.lower()],
        )
    cmp = _CMP[flt.op]
    if isinstance(v, bool) or v is None:
        raise _bad(flt, f"`{flt.op}` needs a number, a date or a string")
    if isinstance(v, (int, float)):
        return f"(p.value_type = 'number' AND p.value_num {cmp} ?)", [float(v)]
    if isinstance(v, str):
        when = instant(v)
        if when is not None:
            return f"(p.value_type IN ('date','datetime') AND p.value_num {cmp} ?)", [when]
        return f"(p.value_type = 'string' AND p.value_text {cmp} ?)", [v]
    raise _bad(flt, f"`{flt.op}` needs a number, a date or a string")


def _filter_sql(vault_id: str, flt: Filter) -> tuple[str, list[Any]]:
    """A SELECT of note ids satisfying one filter."""
    if flt.op not in OPS:
        raise _bad(flt, f"unknown op; use one of {', '.join(OPS)}")
    if not flt.key:
        raise _bad(flt, "key must not be empty")
    has_key = "SELECT n.id FROM notes n, json_each(n.properties) j WHERE n.vault_id = ? AND j.key = ?"
    if flt.op == "exists":
        return has_key, [vault_id, flt.key]
    if flt.op == "not_exists":
        # Notes without the key: a canvas (indexed for its words and links) has no properties at all.
        lacking = f"SELECT id FROM notes WHERE vault_id = ? AND {not_canvas()} AND id NOT IN ({has_key})"
        return lacking, [vault_id, vault_id, flt.key]
    if isinstance(flt.value, list):
        if flt.op not in ("==", "!="):
            raise _bad(flt, "a list value is only allowed with == and !=")
        # Whole-list equality is checked in Python (`_list_equal`); SQL selects the candidates.
        return has_key + (" AND j.type = 'array'" if flt.op == "==" else ""), [vault_id, flt.key]
    cond, params = _scalar_condition(flt)
    matching = f"SELECT p.note_id FROM note_properties p WHERE p.vault_id = ? AND p.key = ? AND {cond}"
    if flt.op == "!=":
        return f"{has_key} AND n.id NOT IN ({matching})", [vault_id, flt.key, vault_id, flt.key, *params]
    return matching, [vault_id, flt.key, *params]


def _list_equal(props: dict[str, Any], flt: Filter) -> bool:
    have = props.get(flt.key)
    if not isinstance(have, list):
        return flt.op == "!="
    same = sorted(json.dumps(x, sort_keys=True) for x in have) == sorted(
        json.dumps(x, sort_keys=True) for x in flt.value
    )
    return same if flt.op == "==" else not same


def search(
    conn: sqlite3.Connection,
    vault_id: str,
    filters: Sequence[Filter],
    folders: Sequence[str],
    sort: Literal["path", "mtime", "title"],
    can_read: Callable[[str], bool],
    match: Literal["all", "any"] = "all",
) -> list[NoteRow]:
    """Every readable note satisfying the filters (all of them, or any), ordered."""
    if not filters:
        raise ValidationFailed("at least one filter is required", details={"field": "filters"})
    list_filters = [f for f in filters if isinstance(f.value, list)]
    sql_filters = [f for f in filters if not isinstance(f.value, list)]
    parts: list[str] = []
    params: list[Any] = []
    for flt in filters:  # every filter is validated, and list filters select their candidates
        sql, p = _filter_sql(vault_id, flt)
        parts.append(sql)
        params += p
    combined = (
        (" INTERSECT " if match == "all" else " UNION ").join(parts) if not list_filters else (" UNION ".join(parts))
    )
    sql_ids: set[int] | None = None
    if list_filters and sql_filters:
        sub: list[str] = []
        sub_params: list[Any] = []
        for flt in sql_filters:
            sql, p = _filter_sql(vault_id, flt)
            sub.append(sql)
            sub_params += p
        joined = (" INTERSECT " if match == "all" else " UNION ").join(sub)
        sql_ids = {int(r[0]) for r in conn.execute(joined, sub_params)}
    where, fparams = folder_clause(folders)
    order = {"path": "n.path", "mtime": "n.mtime DESC, n.path", "title": "n.title COLLATE NOCASE, n.path"}[sort]
    sql = (
        "SELECT n.id, n.path, n.title, n.mtime, n.tags, n.properties FROM notes n"
        f" WHERE n.id IN ({combined}) AND n.vault_id = ? AND {where} ORDER BY {order}"
    )
    out: list[NoteRow] = []
    for note_id, path, title, mtime, tags, props_json in conn.execute(sql, [*params, vault_id, *fparams]):
        if not can_read(path):
            continue
        if list_filters:
            props = json.loads(props_json or "{}")
            checks = [_list_equal(props, f) for f in list_filters]
            if sql_ids is not None:
                checks.append(note_id in sql_ids)
            if not (all(checks) if match == "all" else any(checks)):
                continue
        out.append(NoteRow(note_id, path, title, mtime, tags or "[]", props_json or "{}"))
    return out


@dataclass(frozen=True, slots=True)
class KeyInfo:
    key: str
    type: str  # the most common Obsidian type: text, list, number, checkbox, date, datetime, empty, object
    types: dict[str, int]
    count: int  # readable notes with the key


def obsidian_type(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "checkbox"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    text = str(value)
    if instant(text) is not None:
        return "date" if len(text) == 10 else "datetime"
    return "text"


def keys(
    conn: sqlite3.Connection, vault_id: str, folders: Sequence[str], can_read: Callable[[str], bool]
) -> list[KeyInfo]:
    """Every property key with its inferred type and readable-note count, sorted by key."""
    where, fparams = folder_clause(folders)
    sql = f"SELECT n.path, n.properties FROM notes n WHERE n.vault_id = ? AND n.properties != '{{}}' AND {where}"
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for path, props_json in conn.execute(sql, [vault_id, *fparams]):
        if not can_read(path):
            continue
        for key, value in json.loads(props_json).items():
            counts[key][obsidian_type(value)] += 1
    out: list[KeyInfo] = []
    for key in sorted(counts, key=str.lower):
        types = counts[key]
        typed = [(n, t) for t, n in types.items() if t != "empty"]
        main = max(typed)[1] if typed else "empty"
        out.append(KeyInfo(key, main, dict(types), sum(types.values())))
    return out


@dataclass(frozen=True, slots=True)
class ValueCount:
    value: Any
    type: str
    count: int


def values(
    conn: sqlite3.Connection, vault_id: str, key: str, folders: Sequence[str], can_read: Callable[[str], bool]
) -> list[ValueCount]:
    """Distinct values of one key (list items counted one by one), most frequent first.

    Strings that differ only in case are one value (shown in their most common spelling)."""
    where, fparams = folder_clause(folders)
    sql = (
        "SELECT n.path, p.note_id, p.value_json, p.value_type, p.value_lower FROM note_properties p"
        f" JOIN notes n ON n.id = p.note_id WHERE p.vault_id = ? AND p.key = ? AND {where}"
    )
    notes: dict[tuple[str, str], set[int]] = defaultdict(set)
    spelling: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for path, note_id, value_json, vtype, lower in conn.execute(sql, [vault_id, key, *fparams]):
        if not can_read(path):
            continue
        ident = (vtype, lower if vtype == "string" and lower is not None else value_json)
        notes[ident].add(note_id)
        spelling[ident][value_json] += 1
    out = [
        ValueCount(json.loads(spelling[ident].most_common(1)[0][0]), ident[0], len(ids)) for ident, ids in notes.items()
    ]
    out.sort(key=lambda v: (-v.count, json.dumps(v.value, ensure_ascii=False)))
    return out
