"""JSONLogic (jsonlogic.com) over note metadata, under an operation budget.

Each note is evaluated as the data object
    {path, folder, name, title, tags, aliases, properties, mtime, size, word_count}
where `tags` are without '#', `mtime` is Unix seconds and `properties` is the frontmatter
(`{"var": "properties.status"}`). A rule is kept when it evaluates truthy (JSONLogic truthiness:
empty lists and "" are false). Supported operations: var, missing, missing_some, if / ?:,
==, ===, !=, !==, !, !!, or, and, <, <=, >, >= (with the 3-argument "between" forms), max, min,
+, -, *, /, %, in (substring or list membership), cat, substr, merge, map, filter, reduce,
all, some, none, plus `starts_with`, `ends_with`, `lower` and `glob` (Obsidian-style path
glob, via wcmatch) for path rules.

Guarantees: the rule is validated before any note is read (unknown operations, malformed
arguments and nesting deeper than `[limits] max_depth` are `query_syntax_error` with the
offending path); every operation evaluated counts against one `service.budget.Budget` for the
whole query (`max_ops` steps, `[limits] max_eval_seconds`), `cat` and `merge` check the size they
would build against `[limits]` first, what one note's evaluation builds and holds together (the
texts and lists of `cat`, `merge`, `substr`, `lower`, `map`, `filter`, `reduce`) counts against
`[limits] max_eval_bytes` (`Budget.hold`; a `map` holds its items as it goes, a `reduce` only its
accumulator, and a note gives back what it built when it is done; before, three nested `map`s
of `cat`s over a list of 100 one-letter texts held 100 texts of ~1 MB, and one of 16 MB texts
could hold gigabytes), and a `glob` pattern runs on the interruptible `regex`
engine with the time left (`service.retrieval.globs`). Exceeding any of it raises
`compute_budget_exceeded`, so a pathological rule costs a bounded time. Evaluation never raises
Python errors for type mismatches: like the reference implementation, mismatched comparisons
are false.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from wcmatch import glob as wcglob

from service import budget as shared
from service.budget import DEFAULT_LIMITS, Budget, held_size
from service.errors import QuerySyntaxError
from service.retrieval import globs
from service.settings.limits import LimitsSettings

_GLOB_FLAGS = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.IGNORECASE


def truthy(value: Any) -> bool:
    """JSONLogic truthiness: like JavaScript, except that an empty list is false."""
    if isinstance(value, (list, tuple)):
        return len(value) > 0
    return bool(value) or isinstance(value, dict)


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _loose_eq(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    na, nb = _num(a), _num(b)
    if na is not None and nb is not None:
        return na == nb
    return bool(a == b)


def _compare(op: str, a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        pair: tuple[Any, Any] = (a, b)
    else:
        na, nb = _num(a), _num(b)
        if na is None or nb is None or math.isnan(na) or math.isnan(nb):
            return False
        pair = (na, nb)
    x, y = pair
    return bool({"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op])


def _var(data: Any, path: Any, default: Any = None) -> Any:
    if path is None or path == "":
        return data
    current = data
    for part in str(path).split("."):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return default
    return current


_ARITY: dict[str, tuple[int, int]] = {
    "var": (0, 2), "missing": (0, 99), "missing_some": (2, 2), "if": (0, 99), "?:": (0, 99),
    "==": (2, 2), "===": (2, 2), "!=": (2, 2), "!==": (2, 2), "!": (1, 1), "!!": (1, 1),
    "or": (1, 99), "and": (1, 99), "<": (2, 3), "<=": (2, 3), ">": (2, 2), ">=": (2, 2),
    "max": (1, 99), "min": (1, 99), "+": (0, 99), "-": (1, 2), "*": (1, 99), "/": (2, 2), "%": (2, 2),
    "in": (2, 2), "cat": (0, 99), "substr": (2, 3), "merge": (0, 99), "map": (2, 2),
    "filter": (2, 2), "reduce": (3, 3), "all": (2, 2), "some": (2, 2), "none": (2, 2),
    "starts_with": (2, 2), "ends_with": (2, 2), "lower": (1, 1), "glob": (2, 2),
}  # fmt: skip
MAX_DEPTH = DEFAULT_LIMITS.max_depth


def validate(rule: Any, where: str = "$", depth: int = 0, max_depth: int = MAX_DEPTH) -> None:
    """Reject unknown operations, wrong argument counts and deep nesting before evaluation."""
    if depth > max_depth:
        raise QuerySyntaxError("rule nests too deeply", details={"at": where, "max_depth": max_depth})
    if isinstance(rule, list):
        for i, item in enumerate(rule):
            validate(item, f"{where}[{i}]", depth + 1, max_depth)
        return
    if not isinstance(rule, dict):
        return
    if len(rule) != 1:
        raise QuerySyntaxError("an operation is an object with exactly one key", details={"at": where})
    op, args = next(iter(rule.items()))
    if op not in _ARITY:
        raise QuerySyntaxError(f"unknown operation {op!r}", details={"at": where, "supported": sorted(_ARITY)})
    values = args if isinstance(args, list) else [args]
    low, high = _ARITY[op]
    if not low <= len(values) <= high:
        raise QuerySyntaxError(
            f"{op!r} takes {low}..{high} arguments, got {len(values)}", details={"at": f"{where}.{op}"}
        )
    for i, item in enumerate(values):
        validate(item, f"{where}.{op}[{i}]", depth + 1, max_depth)


class Evaluator:
    def __init__(self, budget: Budget) -> None:
        self.budget = budget

    def run(self, rule: Any, data: Any) -> Any:
        self.budget.spend()
        if isinstance(rule, list):
            return [self.run(r, data) for r in rule]
        if not isinstance(rule, dict):
            return rule
        op, args = next(iter(rule.items()))
        raw = args if isinstance(args, list) else [args]
        lazy = _LAZY.get(op)
        if lazy is not None:
            return lazy(self, raw, data)
        vals = [self.run(a, data) for a in raw]
        try:
            value = _EAGER[op](vals, data)
        except (OverflowError, ValueError):  # a number past a double (10^400, substr at infinity)
            return None
        if op in _BUILDS:
            self.budget.hold(held_size(value))
        return value

    # Operations whose arguments are evaluated selectively.
    def _if(self, args: list[Any], data: Any) -> Any:
        i = 0
        while i + 1 < len(args):
            if truthy(self.run(args[i], data)):
                return self.run(args[i + 1], data)
            i += 2
        return self.run(args[i], data) if i < len(args) else None

    def _or(self, args: list[Any], data: Any) -> Any:
        value: Any = None
        for a in args:
            value = self.run(a, data)
            if truthy(value):
                return value
        return value

    def _and(self, args: list[Any], data: Any) -> Any:
        value: Any = None
        for a in args:
            value = self.run(a, data)
            if not truthy(value):
                return value
        return value

    def _iter(self, args: list[Any], data: Any) -> tuple[list[Any], Any]:
        items = self.run(args[0], data)
        return (items if isinstance(items, list) else []), args[1]

    def _kept(self, body: Any, item: Any, before: int) -> Any:
        """`body` run on `item`, what it built given back but its value (held from `before`)."""
        value = self.run(body, item)
        self.budget.held = before
        self.budget.hold(held_size(value))
        return value

    def _map(self, args: list[Any], data: Any) -> Any:
        items, body = self._iter(args, data)
        out: list[Any] = []
        for item in items:  # each item held beside the ones before it, the list's items with it
            out.append(self._kept(body, item, self.budget.held))
        self.budget.hold(len(out))
        return out

    def _filter(self, args: list[Any], data: Any) -> Any:
        items, body = self._iter(args, data)
        budget = self.budget
        out: list[Any] = []
        for item in items:
            before = budget.held
            if truthy(self.run(body, item)):
                out.append(item)
            budget.held = before
        budget.hold(len(out))
        return out

    def _reduce(self, args: list[Any], data: Any) -> Any:
        items, body = self._iter(args, data)
        before = self.budget.held
        acc = self._kept(args[2], data, before)
        for item in items:  # only the accumulator is held: the one before it is gone
            acc = self._kept(body, {"current": item, "accumulator": acc}, before)
        return acc

    def _all(self, args: list[Any], data: Any) -> Any:
        items, body = self._iter(args, data)
        return bool(items) and all(truthy(self.run(body, item)) for item in items)

    def _some(self, args: list[Any], data: Any) -> Any:
        items, body = self._iter(args, data)
        return any(truthy(self.run(body, item)) for item in items)

    def _none(self, args: list[Any], data: Any) -> Any:
        items, body = self._iter(args, data)
        return not any(truthy(self.run(body, item)) for item in items)


_LAZY: dict[str, Callable[[Evaluator, list[Any], Any], Any]] = {
    "if": Evaluator._if, "?:": Evaluator._if, "or": Evaluator._or, "and": Evaluator._and,
    "map": Evaluator._map, "filter": Evaluator._filter, "reduce": Evaluator._reduce,
    "all": Evaluator._all, "some": Evaluator._some, "none": Evaluator._none,
}  # fmt: skip


def _between(op: str, v: list[Any]) -> bool:
    if len(v) == 3:
        return _compare(op, v[0], v[1]) and _compare(op, v[1], v[2])
    return _compare(op, v[0], v[1])


def _minus(v: list[Any]) -> Any:
    nums = [_num(x) for x in v]
    if any(n is None for n in nums):
        return None
    return -nums[0] if len(nums) == 1 else nums[0] - nums[1]  # type: ignore[operator]


def _arith(v: list[Any], fn: Callable[[float, float], float]) -> Any:
    a, b = _num(v[0]), _num(v[1])
    if a is None or b is None or b == 0:
        return None
    return fn(a, b)


def _fold(v: list[Any], fn: Callable[[list[float]], float]) -> Any:
    nums = [_num(x) for x in v]
    return None if not nums or any(n is None for n in nums) else fn([n for n in nums if n is not None])


def _in(v: list[Any]) -> bool:
    needle, hay = v
    if isinstance(hay, str):
        return isinstance(needle, str) and needle in hay
    if isinstance(hay, list):
        return any(_loose_eq(needle, item) for item in hay)
    return False


def _substr(v: list[Any]) -> str:
    text = "" if v[0] is None else str(v[0])
    start = int(_num(v[1]) or 0)
    if start < 0:
        start = max(len(text) + start, 0)
    if len(v) == 2:
        return text[start:]
    length = int(_num(v[2]) or 0)
    end = len(text) + length if length < 0 else start + length
    return text[start:end]


def _merge(v: list[Any]) -> list[Any]:
    shared.check_items(sum(len(x) if isinstance(x, list) else 1 for x in v))
    out: list[Any] = []
    for x in v:
        out.extend(x if isinstance(x, list) else [x])
    return out


def _cat(v: list[Any]) -> str:
    parts = ["" if x is None else str(x) for x in v]
    shared.check_chars(sum(len(p) for p in parts))
    return "".join(parts)


def _missing(v: list[Any], data: Any) -> list[Any]:
    keys = v[0] if len(v) == 1 and isinstance(v[0], list) else v
    return [k for k in keys if _var(data, k) in (None, "")]


def _missing_some(v: list[Any], data: Any) -> list[Any]:
    need, keys = v
    missing = _missing([keys], data)
    return [] if len(keys) - len(missing) >= int(_num(need) or 0) else missing


def _glob(v: list[Any]) -> bool:
    if not isinstance(v[0], str) or not isinstance(v[1], str):
        return False
    try:
        match = globs.matcher(v[1], _GLOB_FLAGS)
    except globs.GlobError as exc:
        raise QuerySyntaxError(
            f"unusable glob pattern: {exc}", details={"pattern": v[1][:200]}, hint="Use fewer {a,b} braces."
        ) from None
    return match(v[0])


_BUILDS = frozenset({"cat", "merge", "substr", "lower"})  # new texts and lists: held (`Budget.hold`)
_EAGER: dict[str, Callable[[list[Any], Any], Any]] = {
    "var": lambda v, d: _var(d, v[0] if v else None, v[1] if len(v) > 1 else None),
    "missing": _missing,
    "missing_some": _missing_some,
    "==": lambda v, d: _loose_eq(v[0], v[1]),
    "===": lambda v, d: type(v[0]) is type(v[1]) and v[0] == v[1],
    "!=": lambda v, d: not _loose_eq(v[0], v[1]),
    "!==": lambda v, d: not (type(v[0]) is type(v[1]) and v[0] == v[1]),
    "!": lambda v, d: not truthy(v[0]),
    "!!": lambda v, d: truthy(v[0]),
    "<": lambda v, d: _between("<", v),
    "<=": lambda v, d: _between("<=", v),
    ">": lambda v, d: _compare(">", v[0], v[1]),
    ">=": lambda v, d: _compare(">=", v[0], v[1]),
    "max": lambda v, d: _fold(v, max),
    "min": lambda v, d: _fold(v, min),
    "+": lambda v, d: _fold(v, sum) if v else 0,
    "-": lambda v, d: _minus(v),
    "*": lambda v, d: _fold(v, math.prod),
    "/": lambda v, d: _arith(v, lambda a, b: a / b),
    "%": lambda v, d: _arith(v, lambda a, b: a % b),
    "in": lambda v, d: _in(v),
    "cat": lambda v, d: _cat(v),
    "substr": lambda v, d: _substr(v),
    "merge": lambda v, d: _merge(v),
    "starts_with": lambda v, d: isinstance(v[0], str) and isinstance(v[1], str) and v[0].startswith(v[1]),
    "ends_with": lambda v, d: isinstance(v[0], str) and isinstance(v[1], str) and v[0].endswith(v[1]),
    "lower": lambda v, d: v[0].lower() if isinstance(v[0], str) else v[0],
    "glob": lambda v, d: _glob(v),
}


def matcher(rule: Any, max_ops: int, limits: LimitsSettings = DEFAULT_LIMITS) -> Callable[[dict[str, Any]], bool]:
    """Validate `rule` once; return a predicate over note data sharing one budget (steps, time)."""
    validate(rule, max_depth=limits.max_depth)
    budget = Budget(
        limits,
        max_steps=max_ops,
        max_seconds=limits.max_eval_seconds,
        what="the JSONLogic rule",
        hint="Narrow `folder`, simplify the rule, or filter by tags/properties first.",
        steps_name="max_ops",
    )
    evaluator = Evaluator(budget)

    def match(data: dict[str, Any]) -> bool:
        with budget.active():
            try:
                return truthy(evaluator.run(rule, data))
            finally:
                budget.held = 0  # what the note's evaluation built is gone

    return match
