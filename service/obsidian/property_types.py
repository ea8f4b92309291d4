"""Obsidian's property types: the type a vault gives each property name, and values written to fit it.

Obsidian keeps one type per property name for the whole vault in `.obsidian/types.json`
(`{"types": {"rating": "number", "genre": "multitext", ...}}`), set when someone picks a type
in the Properties view; `tags` and `aliases` have their own types and `cssclasses` is a list
without an entry there. The types are text, multitext (a list), number, checkbox, date,
datetime, tags and aliases. Names are matched in any letter case, as Obsidian shows one
property for `Rating` and `rating`.

`fitted` is how set_properties writes a value to a typed property, as Obsidian's own editor
would store it: one text for a list type is a list of one item; a number or a checkbox given
as text (`"4"`, `"true"`) is written as a number or a boolean; a date must be `YYYY-MM-DD`
and a date and time `YYYY-MM-DDTHH:MM` (seconds optional). A value that cannot be that type
(a word for a number, a list for a text) raises `TypeMismatch`, naming what fits.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

TYPES = frozenset({"text", "multitext", "number", "checkbox", "date", "datetime", "tags", "aliases"})
BUILT_IN = {"tags": "tags", "aliases": "aliases", "cssclasses": "multitext"}
LISTS = frozenset({"multitext", "tags", "aliases"})
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATETIME = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?")
_WANTED = {
    "text": "one text (not a list or a mapping)",
    "multitext": "a list of texts (one text becomes a list of one)",
    "tags": "a list of tags (one tag becomes a list of one)",
    "aliases": "a list of names (one name becomes a list of one)",
    "number": "a number (or a text that is one, such as '4.5')",
    "checkbox": "true or false",
    "date": "a date written YYYY-MM-DD",
    "datetime": "a date and time written YYYY-MM-DDTHH:MM (seconds optional)",
}


class TypeMismatch(ValueError):
    """A value that cannot be written as its property's declared type; `wanted` says what can."""

    def __init__(self, kind: str) -> None:
        super().__init__(_WANTED[kind])
        self.kind = kind
        self.wanted = _WANTED[kind]


def declared(raw: Any) -> dict[str, str]:
    """Lower-cased property name -> type, from `.obsidian/types.json`'s parsed JSON (None or any
    other shape: only the built-in ones); names with an unknown type, or a list or an object for
    one, are left out."""
    out = dict(BUILT_IN)
    types = raw.get("types") if isinstance(raw, dict) else None
    if isinstance(types, dict):
        for name, kind in types.items():
            if isinstance(name, str) and isinstance(kind, str) and kind in TYPES:  # a list or object is no type
                out[name.lower()] = kind
    return out


def fitted(value: Any, kind: str) -> Any:
    """`value` (JSON: never None here) as a property of type `kind` is written (see the module text)."""
    if kind in LISTS:
        if isinstance(value, list):
            return value
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return [value]
    elif kind == "number":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            return _number(value, kind)
    elif kind == "checkbox":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
    elif kind in ("date", "datetime"):
        if isinstance(value, str) and _is_date(value.strip(), kind):
            return value.strip()
    elif not isinstance(value, list | dict):  # text: any one scalar
        return value
    raise TypeMismatch(kind)


def _number(text: str, kind: str) -> int | float:
    try:
        number = int(text.strip())
    except ValueError:
        try:
            real = float(text.strip())
        except ValueError:
            raise TypeMismatch(kind) from None
        if not math.isfinite(real):
            raise TypeMismatch(kind) from None
        return real
    return number


def _is_date(text: str, kind: str) -> bool:
    if kind == "date":
        if not _DATE.fullmatch(text):
            return False
        day, hour, minute, second = text, "0", "0", "0"
    else:
        m = _DATETIME.fullmatch(text)
        if m is None:
            return False
        day, hour, minute, second = m.group(1), m.group(2), m.group(3), m.group(4) or "0"
    try:
        dt.datetime.fromisoformat(day).replace(hour=int(hour), minute=int(minute), second=int(second))
    except ValueError:
        return False
    return True
