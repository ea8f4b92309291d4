"""String and list methods of Bases expressions (help page "Functions": String type, List type).

Plain functions of (receiver, arguments). JavaScript semantics where the help page points to
them: `slice` with negative indices, `replace` with a string replaces every occurrence and with a
regular expression honours its `g` flag and `$1` groups, `split` keeps the first `n` parts.
A string or list a method builds (`repeat`, `replace`, `join`, `flat`) is checked against
`[limits]` (`service.budget`) before it is built; `unique` is linear for plain values.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from service import budget as limits
from service import js_replace
from service.bases.values import EvalError, FileRef, Link, Regex, equals, sort_key, to_string


def _text_arg(args: list[Any], i: int, name: str) -> str:
    if i >= len(args):
        raise EvalError(f"{name}() needs argument {i + 1}")
    return to_string(args[i])


def _int_arg(args: list[Any], i: int, default: int | None) -> int | None:
    if i >= len(args) or args[i] is None:
        return default
    v = args[i]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise EvalError(f"expected a number, got {to_string(v)!r}")
    return int(v)


def s_replace(s: str, args: list[Any]) -> str:
    if not args:
        raise EvalError("replace() needs a pattern and a replacement")
    pattern, replacement = args[0], _text_arg(args, 1, "replace")
    if isinstance(pattern, Regex):
        count = 0 if "g" in pattern.flags else 1
        budget = limits.current()
        size, last = len(s), -1

        def one(m: Any) -> str:
            nonlocal size, last
            if m.start() <= last:  # a new attempt scans from the start again (`budget.regex_call`)
                size = len(s)
            last = m.start()
            piece = js_replace.expand(m, replacement, s)  # $&, $1, $<name>... as JavaScript
            size += len(piece) - (m.end() - m.start())
            budget.check_chars(size)
            return piece

        return str(pattern.run("sub", one, s, count=count))
    old = to_string(pattern)
    found = s.count(old) if old else len(s) + 1
    limits.check_chars(len(s) + found * (len(replacement) - len(old)))
    return s.replace(old, replacement)


def s_repeat(s: str, args: list[Any]) -> str:
    times = max(0, _int_arg(args, 0, 0) or 0)
    limits.check_chars(len(s) * times)
    return s * times


def s_split(s: str, args: list[Any]) -> list[str]:
    if not args:
        raise EvalError("split() needs a separator")
    sep, n = args[0], _int_arg(args, 1, None)
    if isinstance(sep, Regex):
        parts = [p for p in sep.run("split", s) if p is not None] if sep.source else list(s)
    else:
        text = to_string(sep)
        parts = s.split(text) if text else list(s)
    return parts[:n] if n is not None else parts


def s_title(s: str, args: list[Any]) -> str:
    return re.sub(r"(^|\s)(\S)", lambda m: m.group(1) + m.group(2).upper(), s)


def _slice(seq: Any, args: list[Any]) -> Any:
    start = _int_arg(args, 0, 0)
    end = _int_arg(args, 1, None)
    return seq[start:end]


STRING: dict[str, Callable[[str, list[Any]], Any]] = {
    "contains": lambda s, a: _text_arg(a, 0, "contains") in s,
    "containsAll": lambda s, a: all(to_string(x) in s for x in a),
    "containsAny": lambda s, a: any(to_string(x) in s for x in a),
    "endsWith": lambda s, a: s.endswith(_text_arg(a, 0, "endsWith")),
    "startsWith": lambda s, a: s.startswith(_text_arg(a, 0, "startsWith")),
    "isEmpty": lambda s, a: len(s) == 0,
    "lower": lambda s, a: s.lower(),
    "upper": lambda s, a: s.upper(),
    "replace": s_replace,
    "repeat": s_repeat,
    "reverse": lambda s, a: s[::-1],
    "slice": _slice,
    "split": s_split,
    "title": s_title,
    "trim": lambda s, a: s.strip(),
}


def _contains(items: list[Any], value: Any) -> bool:
    limits.current().spend(len(items))  # containsAll over two long lists is quadratic: counted, timed
    return any(equals(x, value) for x in items)


def l_flat(items: list[Any], args: list[Any]) -> list[Any]:
    limits.check_items(sum(len(x) if isinstance(x, list) else 1 for x in items))
    out: list[Any] = []
    for x in items:
        if isinstance(x, list):
            out.extend(x)
        else:
            out.append(x)
    return out


_PLAIN = {str: "s", int: "n", float: "n", bool: "b", type(None): "z"}


def l_unique(items: list[Any], args: list[Any]) -> list[Any]:
    """First occurrences in order, under Bases equality: numbers, booleans and null by a hash key;
    strings by a hash key too, except that a link kept earlier may equal one (and is compared);
    links, dates, lists and objects against the kept values of those kinds (and strings)."""
    budget = limits.current()
    out: list[Any] = []
    seen: set[tuple[str, Any]] = set()
    others: list[Any] = []  # kept values that are not plain (compared with `equals`)
    for x in items:
        budget.spend()
        kind = _PLAIN.get(type(x))
        if kind is not None:
            key = (kind, x)
            if key in seen or (kind == "s" and others and _contains(others, x)):
                continue
            seen.add(key)
        elif _contains(others, x) or (
            isinstance(x, (Link, FileRef)) and any(equals(x, kept) for kept in out if type(kept) is str)
        ):
            continue
        else:
            others.append(x)
        out.append(x)
    return out


def l_join(items: list[Any], args: list[Any]) -> str:
    sep = to_string(args[0]) if args else ","
    budget = limits.current()
    parts: list[str] = []
    size = 0
    for x in items:
        text = to_string(x)
        size += len(text) + len(sep)
        budget.check_chars(size)
        parts.append(text)
    return sep.join(parts)


def _numbers(items: list[Any]) -> list[float]:
    return [x for x in items if isinstance(x, (int, float)) and not isinstance(x, bool)]


def l_mean(items: list[Any], args: list[Any]) -> Any:
    nums = _numbers(items)
    return sum(nums) / len(nums) if nums else None


LIST: dict[str, Callable[[list[Any], list[Any]], Any]] = {
    "contains": lambda items, a: _contains(items, a[0] if a else None),
    "containsAll": lambda items, a: all(_contains(items, v) for v in a),
    "containsAny": lambda items, a: any(_contains(items, v) for v in a),
    "flat": l_flat,
    "isEmpty": lambda items, a: len(items) == 0,
    "join": l_join,
    "reverse": lambda items, a: items[::-1],
    "slice": _slice,
    "sort": lambda items, a: sorted(items, key=sort_key),
    "unique": l_unique,
    # Not in the function list, used by the help page's summary example (`values.mean()`).
    "mean": l_mean,
    "sum": lambda items, a: sum(_numbers(items)),
}
