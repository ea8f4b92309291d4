"""A page's row as the page set holds it: its values in a tuple beside a key table shared by every
row with the same keys in the same order (`Row`), and the build's sharing of equal values.

At 10^5 notes a dict per row took ~24 MB of the page image (a table of keys and hashes each,
though a vault's rows come in a hundred or so shapes); a `Row` is two slots and a tuple. It reads
as the dict it was made from: the same keys in the same order, the same values, `get` at nearly
dict speed (one look-up in the shared table, one index). Rows are never changed after the build.
Touches nothing outside itself.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from typing import Any


class Row(Mapping[str, Any]):
    """An immutable mapping of field names to values; `Shapes.row` makes one from a dict."""

    __slots__ = ("_keys", "_values")

    def __init__(self, keys: dict[str, int], values: tuple[Any, ...]) -> None:
        self._keys = keys  # name -> place in `_values`, one table per shape (shared)
        self._values = values

    def get(self, key: str, default: Any = None) -> Any:
        at = self._keys.get(key)
        return default if at is None else self._values[at]

    def __getitem__(self, key: str) -> Any:
        return self._values[self._keys[key]]

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class Shapes:
    """The key tables of one build's rows: one per distinct sequence of keys."""

    __slots__ = ("_tables",)

    def __init__(self) -> None:
        self._tables: dict[tuple[str, ...], dict[str, int]] = {}

    def row(self, fields: dict[str, Any]) -> Row:
        """`fields` as a `Row` (same keys, order and values)."""
        return Row(*self.table(fields))

    def table(self, fields: dict[str, Any]) -> tuple[dict[str, int], tuple[Any, ...]]:
        """The shared key table of `fields`' keys and its values, as a `Row` holds them."""
        names = tuple(fields)
        keys = self._tables.get(names)
        if keys is None:
            keys = self._tables[names] = {name: at for at, name in enumerate(names)}
        return keys, tuple(fields.values())


def share(table: dict[Any, Any], value: Any) -> Any:
    """Equal texts, dates and lists of texts of different pages as one object (no query changes
    a value in place). Not a closure made per page: one calling itself is a cycle, left to the
    collector until after the build (~37 MB of holes)."""
    if type(value) is str or type(value) is dt.datetime:
        return table.setdefault(value, value)
    if type(value) is list:
        items = [share(table, v) for v in value]
        if items and all(type(v) is str for v in items):  # tags, aliases, categories: one list for equal ones
            return table.setdefault(("list", *items), items)  # a tuple key: never equal to a shared text
        return items
    return value
