"""Summaries of a column: the built-in ones of the help page and formula summaries.

Built-ins (Bases syntax, "Default Summary Formulas"): Average, Min, Max, Sum, Range, Median,
Stddev (population) over the numbers of the column; Earliest, Latest and Range over its dates
(Range of dates is a duration); Checked / Unchecked count true / false; Empty / Filled count
empty / non-empty values; Unique counts distinct non-empty values. A formula summary (the base's
`summaries` section) runs its expression with `values` bound to the column's values.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from typing import Any

from service.bases.dates import Date, Duration
from service.bases.env import Env, Fn
from service.bases.values import cell, identity, is_empty


def _numbers(values: list[Any]) -> list[float]:
    return [v for v in values if (type(v) is int or type(v) is float) and math.isfinite(v)]


def _empties(values: list[Any]) -> int:
    return values.count(None) + sum(
        1 for v in values if (type(v) is str or type(v) is list or type(v) is dict) and not v
    )


def _dates(values: list[Any]) -> list[Date]:
    return [v for v in values if isinstance(v, Date)]


def _range(values: list[Any]) -> Any:
    nums = _numbers(values)
    if nums:
        return max(nums) - min(nums)
    ds = _dates(values)
    if ds:
        return Duration(0, max(d.millis() for d in ds) - min(d.millis() for d in ds))
    return None


def _unique(values: list[Any]) -> int:
    strings = [v for v in values if type(v) is str]
    if strings and len(strings) + values.count(None) == len(values):  # only text: the values themselves
        texts = set(strings)
        return len(texts) - ("" in texts)
    return len({identity(v) for v in values if not is_empty(v)})


BUILTIN: dict[str, Callable[[list[Any]], Any]] = {
    "Average": lambda vs: statistics.fmean(n) if (n := _numbers(vs)) else None,
    "Min": lambda vs: min(n) if (n := _numbers(vs)) else None,
    "Max": lambda vs: max(n) if (n := _numbers(vs)) else None,
    "Sum": lambda vs: sum(_numbers(vs)),
    "Range": _range,
    "Median": lambda vs: statistics.median(n) if (n := _numbers(vs)) else None,
    "Stddev": lambda vs: statistics.pstdev(n) if (n := _numbers(vs)) else None,
    "Earliest": lambda vs: min(d, key=lambda x: x.millis()) if (d := _dates(vs)) else None,
    "Latest": lambda vs: max(d, key=lambda x: x.millis()) if (d := _dates(vs)) else None,
    "Checked": lambda vs: sum(1 for v in vs if v is True),
    "Unchecked": lambda vs: sum(1 for v in vs if v is False),
    "Empty": _empties,
    "Filled": lambda vs: len(vs) - _empties(vs),
    "Unique": _unique,
}


def summarize(name: str, values: list[Any], custom: dict[str, Fn], env: Env) -> dict[str, Any]:
    """{"summary": name, "value": typed cell}; a custom formula runs with `values` bound."""
    value = custom[name](env.child({"values": values})) if name in custom else BUILTIN[name](values)
    return {"summary": name, "value": cell(value)}
