"""The methods of `… by function` expressions beyond the first ones (`expression_values`):
JavaScript's `split`, `slice`, `substring`, `padStart`, … on text, `toFixed` on numbers, and the
array methods that take an arrow function (`find`, `filter`, `some`, `every`, `map`), as the
Tasks plugin's documented examples call them. Bounded: a padded text is 10,000 characters at most.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from service.obsidian.tasks_query.expression_values import ExpressionError, Scope, call_method, same, truthy

_NUMBER = (int, float)


class Arrow:
    """An arrow function (`(tag) => …`) as the value a method such as `find` is called with."""

    __slots__ = ("body", "params", "scope")

    def __init__(self, params: tuple[str, ...], body: Callable[[Scope], Any], scope: Scope) -> None:
        self.params, self.body, self.scope = params, body, scope

    def __call__(self, *values: Any) -> Any:
        return self.body(self.scope.naming(dict(zip(self.params, values, strict=False))))


def call(target: Any, name: str, args: list[Any], column: int) -> Any:
    """`target.name(*args)`: the methods here, else those of `expression_values`."""
    if isinstance(target, str) and name in _MORE_STR:
        return _more_str(target, name, args, column)
    if isinstance(target, list) and name in _MORE_LIST:
        return _more_list(target, name, args, column)
    if isinstance(target, _NUMBER) and not isinstance(target, bool) and name == "toFixed":
        digits = args[0] if args else 0
        if len(args) > 1 or isinstance(digits, bool) or not isinstance(digits, _NUMBER) or not 0 <= digits <= 100:
            raise ExpressionError("toFixed takes a number of digits from 0 to 100", column)
        exact = Decimal(target).quantize(Decimal(1).scaleb(-int(digits)), rounding=ROUND_HALF_UP)  # JS: ties up
        return f"{exact:.{int(digits)}f}"
    return call_method(target, name, args, column)


_MORE_STR = ("split", "slice", "substring", "toLocaleLowerCase", "toLocaleUpperCase", "padStart", "padEnd", "indexOf")
_MORE_LIST = ("find", "filter", "some", "every", "map", "slice", "indexOf", "pop")


def _ints(args: list[Any], most: int, column: int, name: str) -> list[int]:
    if len(args) > most or any(isinstance(a, bool) or not isinstance(a, _NUMBER) for a in args):
        raise ExpressionError(f"{name}() takes up to {most} numbers here", column)
    return [int(a) for a in args]


def _more_str(target: str, name: str, args: list[Any], column: int) -> Any:
    """JavaScript's string methods beyond the first ones (`split`, `slice`, `substring`, …)."""
    if name in ("toLocaleLowerCase", "toLocaleUpperCase") and not args:
        return target.lower() if name == "toLocaleLowerCase" else target.upper()
    if name == "split" and len(args) == 1 and isinstance(args[0], str):
        return list(target) if args[0] == "" else target.split(args[0])
    if name == "indexOf" and len(args) == 1 and isinstance(args[0], str):
        return target.find(args[0])
    if name in ("padStart", "padEnd") and args and (len(args) == 1 or isinstance(args[1], str)):
        width = _ints(args[:1], 1, column, name)[0]
        if width > _MAX_PAD:
            raise ExpressionError(f"{name}() pads to {_MAX_PAD} characters at most here", column)
        fill, need = (args[1] if len(args) > 1 else " "), max(0, width - len(target))
        pad = (fill * -(-need // len(fill)))[:need] if fill else ""
        return pad + target if name == "padStart" else target + pad
    if name in ("slice", "substring"):
        bounds = _ints(args, 2, column, name)
        if name == "slice":
            return target[slice(*bounds)] if len(bounds) == 2 else target[bounds[0] if bounds else 0 :]
        ends = [*bounds, len(target)] if len(bounds) == 1 else bounds or [0, len(target)]
        first, last = (min(max(b, 0), len(target)) for b in ends)
        return target[min(first, last) : max(first, last)]
    raise ExpressionError(f"cannot call .{name}() on a string with these arguments", column)


def _more_list(target: list[Any], name: str, args: list[Any], column: int) -> Any:
    """JavaScript's array methods that take an arrow function (`find`, `filter`, …), and a few more."""
    if name in ("find", "filter", "some", "every", "map"):
        if len(args) != 1 or not isinstance(args[0], Arrow):
            raise ExpressionError(f"{name}() takes an arrow function, such as (tag) => tag.includes('/')", column)
        f = args[0]
        if name == "map":
            return [f(v, i) for i, v in enumerate(target)]
        kept = (v for i, v in enumerate(target) if truthy(f(v, i)))
        if name == "filter":
            return list(kept)
        if name == "find":
            return next(kept, None)
        if name == "some":
            return next(kept, _NONE) is not _NONE
        return all(truthy(f(v, i)) for i, v in enumerate(target))
    if name == "slice":
        bounds = _ints(args, 2, column, name)
        return target[slice(*bounds)] if len(bounds) == 2 else target[bounds[0] if bounds else 0 :]
    if name == "indexOf" and len(args) == 1:
        return next((i for i, v in enumerate(target) if same(v, args[0])), -1)
    if name == "pop" and not args:
        return target[-1] if target else None
    raise ExpressionError(f"cannot call .{name}() on an array with these arguments", column)


_NONE = object()
_MAX_PAD = 10_000  # padStart / padEnd: a query cannot build a huge string
