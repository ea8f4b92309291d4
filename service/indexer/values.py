"""A frontmatter value as `note_properties` rows: its type, text, lower-cased text and number.

Pure functions (run where notes are parsed, a worker process included): a date or datetime
string gets its timestamp as the number, so ranges compare as time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from typing import Any


def property_rows(key: str, value: Any, to_json: Callable[[Any], str]) -> Iterable[tuple[Any, ...]]:
    """The `note_properties` rows of one frontmatter key: one per list item, else one; each
    value typed (`_typed`) and written as JSON by `to_json`."""
    items: list[tuple[int | None, Any]] = (
        [(i, v) for i, v in enumerate(value)] if isinstance(value, list) else [(None, value)]
    )
    for index, item in items:
        vtype, text, num = _typed(item, to_json)
        lower = text.lower() if text is not None else None
        yield (key, index, vtype, text, lower, num, to_json(item))


def _typed(value: Any, to_json: Callable[[Any], str]) -> tuple[str, str | None, float | None]:
    if value is None:
        return "null", None, None
    if isinstance(value, bool):
        return "boolean", "true" if value else "false", 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return "number", str(value), float(value)
    if isinstance(value, str):
        for kind, parser in (("date", dt.date.fromisoformat), ("datetime", dt.datetime.fromisoformat)):
            if (kind == "date" and len(value) == 10) or (kind == "datetime" and len(value) > 10 and "T" in value):
                try:
                    parsed = parser(value)
                except ValueError:
                    continue
                if isinstance(parsed, dt.datetime):
                    stamp = (parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)).timestamp()
                else:
                    stamp = dt.datetime(parsed.year, parsed.month, parsed.day, tzinfo=dt.UTC).timestamp()
                return kind, value, stamp
        return "string", value, None
    return "object", to_json(value), None
