"""JSON text as JavaScript's `JSON.stringify(value, null, "\t")` writes it, to the byte.

The Excalidraw plugin stores its scene that way (inside the LZ-string block or as plain JSON);
writing a scene back with Python's `json.dumps` would change bytes that did not change: numbers
(`1e-05` against JavaScript's `0.00001`, `100.0` against `100`), the order of keys that look like
array indexes (JavaScript puts `"0"`, `"12"` before every other key, in numeric order) and lone
surrogates (JavaScript escapes them as `\\udxxx`). Everything else — the escapes of control
characters, `": "` and `",\\n"` with one tab per level, `[]` and `{}` for empty containers — is
what `json.dumps(ensure_ascii=False, indent="\\t")` already does, and is done the same way here.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_INDEX_KEY = re.compile(r"^(?:0|[1-9][0-9]{0,9})$")
_MAX_INDEX = 2**32 - 2  # the largest array index JavaScript orders first


def number(value: int | float) -> str:
    """`String(value)` in JavaScript (the form `JSON.stringify` writes); NaN and the infinities
    are `null`, as there."""
    if isinstance(value, int) and abs(value) < 10**21:
        return str(value)
    x = float(value)
    if not math.isfinite(x):
        return "null"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    # repr gives the shortest digits that read back as x, which is what JavaScript prints too;
    # only where the decimal point goes (and when to switch to an exponent) differs.
    dec = Decimal(repr(abs(x))).normalize()
    _, digit_tuple, exp = dec.as_tuple()
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = int(exp) + k  # the decimal point sits after n digits
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def string(value: str) -> str:
    return escape_lone(json.dumps(value, ensure_ascii=False))


def escape_lone(text: str) -> str:
    """JSON text from `json.dumps(..., ensure_ascii=False)` with each lone surrogate (half a UTF-16
    pair, only ever inside a string) written as its escape, as JavaScript writes it: the text is
    then UTF-8 (a file can hold it) and reads back as the same value."""
    if _LONE_SURROGATE.search(text):
        text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def _keys(obj: dict[str, Any]) -> list[str]:
    keys = list(obj)
    indexes = [k for k in keys if _INDEX_KEY.match(k) and int(k) <= _MAX_INDEX]
    if not indexes:
        return keys
    return sorted(indexes, key=int) + [k for k in keys if k not in set(indexes)]


def _write(value: Any, indent: str, level: int, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int | float):
        out.append(number(value))
    elif isinstance(value, str):
        out.append(string(value))
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = "\n" + indent * (level + 1)
        out.append("[")
        for i, item in enumerate(value):
            out.append(inner if i == 0 else "," + inner)
            _write(item, indent, level + 1, out)
        out.append("\n" + indent * level + "]")
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = "\n" + indent * (level + 1)
        out.append("{")
        for i, key in enumerate(_keys(value)):
            out.append(inner if i == 0 else "," + inner)
            out.append(string(str(key)) + ": ")
            _write(value[key], indent, level + 1, out)
        out.append("\n" + indent * level + "}")
    else:
        raise TypeError(f"not a JSON value: {type(value).__name__}")


def stringify(value: Any, indent: str = "\t") -> str:
    """`JSON.stringify(value, null, indent)` for a value read from JSON."""
    out: list[str] = []
    _write(value, indent, 0, out)
    return "".join(out)
