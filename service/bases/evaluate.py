"""Compiles an expression tree into nested Python closures and runs them over rows.

`compile_expr` resolves names once: `file`, `note`, `formula`, `this`, the list-lambda
variables (`value`, `index`, `acc` inside `map` / `filter` / `reduce`), `values` (summaries),
global functions; any other bare name reads the note property. Unknown functions, methods and
formulas are `ExprSyntaxError`s at compile time (with the offending token). Each closure takes an
`Env` (the row, its formula cache, the lambda variables, the query `Context` with the snapshot,
`this` and the step/time budget). Operators follow `values` (JavaScript-like, dates and
durations included); functions and methods live in `functions` and `methods`. `+` checks the
string or list it would build against `[limits]` first (`service.budget`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service import budget as limits
from service.bases import dates, methods
from service.bases.dates import Date, Duration
from service.bases.env import Env, Fn, read_property, record_properties
from service.bases.functions import GLOBALS, LAZY
from service.bases.parser import ExprSyntaxError, Node
from service.bases.values import EvalError, FileRef, make_regex, to_string, truthy
from service.bases.values import compare as cmp
from service.bases.values import equals as eq
from service.budget import held_size

LAMBDA_METHODS = frozenset({"map", "filter", "reduce"})


def compile_expr(node: Node, bound: frozenset[str] = frozenset(), formulas: frozenset[str] | None = None) -> Fn:
    """Closures for `node`; `formulas` (when given) are the names `formula.x` may use."""
    return _Compiler(formulas).compile(node, bound)


def formula_refs(node: Node) -> set[str]:
    """The formula names an expression reads (`formula.x`, `formula["x"]`)."""
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if n.kind in ("member", "index") and n.args[0].kind == "ident" and n.args[0].value == "formula":
            if n.kind == "member":
                out.add(n.value)
            elif n.args[1].kind == "lit":
                out.add(str(n.args[1].value))
        stack.extend(n.args)
    return out


class _Compiler:
    def __init__(self, formulas: frozenset[str] | None) -> None:
        self.formulas = formulas

    def compile(self, n: Node, bound: frozenset[str]) -> Fn:
        return getattr(self, "_" + n.kind)(n, bound)  # type: ignore[no-any-return]

    def _lit(self, n: Node, bound: frozenset[str]) -> Fn:
        value = n.value
        return lambda env: value

    def _regex(self, n: Node, bound: frozenset[str]) -> Fn:
        try:
            regex = make_regex(*n.value)
        except EvalError as exc:
            raise ExprSyntaxError(str(exc), n.pos, "/" + n.value[0] + "/") from exc
        return lambda env: regex

    def _list(self, n: Node, bound: frozenset[str]) -> Fn:
        items = [self.compile(a, bound) for a in n.args]
        return lambda env: [f(env) for f in items]

    def _obj(self, n: Node, bound: frozenset[str]) -> Fn:
        keys = [a.value for a in n.args[0::2]]
        vals = [self.compile(a, bound) for a in n.args[1::2]]
        return lambda env: {k: f(env) for k, f in zip(keys, vals, strict=True)}

    def _ident(self, n: Node, bound: frozenset[str]) -> Fn:
        name = n.value
        if name in bound:
            return lambda env: env.local.get(name)
        if name == "file":
            return lambda env: FileRef(env.rec) if env.rec is not None else None
        if name == "this":
            return lambda env: FileRef(env.ctx.this, is_this=True) if env.ctx.this is not None else None
        if name == "note":
            return lambda env: record_properties(env.rec, env.ctx.snapshot) if env.rec is not None else {}
        if name == "formula":
            raise ExprSyntaxError("`formula` must be followed by a formula name", n.pos, name)
        return _property_reader(name)

    def _scoped_key(self, n: Node) -> tuple[str, str] | None:
        """('note' | 'formula', key) for note.x, note["x"], formula.x, formula["x"]."""
        base = n.args[0]
        if base.kind != "ident" or base.value not in ("note", "formula"):
            return None
        if n.kind == "member":
            return base.value, n.value
        if n.args[1].kind == "lit" and isinstance(n.args[1].value, str):
            return base.value, n.args[1].value
        return None

    def _scoped(self, n: Node, bound: frozenset[str]) -> Fn | None:
        if n.args[0].kind == "ident" and n.args[0].value in bound:
            return None
        scoped = self._scoped_key(n)
        if scoped is None:
            return None
        scope, key = scoped
        if scope == "note":
            return _property_reader(key)
        if self.formulas is not None and key not in self.formulas:
            raise ExprSyntaxError(f"unknown formula {key!r}", n.pos, key)
        return lambda env: env.formula(key)

    def _member(self, n: Node, bound: frozenset[str]) -> Fn:
        scoped = self._scoped(n, bound)
        if scoped is not None:
            return scoped
        obj, name = self.compile(n.args[0], bound), n.value
        snapshot_field = methods.field

        def member(env: Env) -> Any:
            return snapshot_field(obj(env), name, env)

        return member

    def _index(self, n: Node, bound: frozenset[str]) -> Fn:
        scoped = self._scoped(n, bound)
        if scoped is not None:
            return scoped
        obj, key = self.compile(n.args[0], bound), self.compile(n.args[1], bound)
        return lambda env: methods.index(obj(env), key(env), env)

    def _call(self, n: Node, bound: frozenset[str]) -> Fn:
        callee, raw_args = n.args[0], n.args[1:]
        if callee.kind == "ident" and callee.value not in bound:
            name = callee.value
            if name in LAZY:
                lazy_args = [self.compile(a, bound) for a in raw_args]
                impl = LAZY[name]
                return lambda env: impl(env, lazy_args)
            if name not in GLOBALS:
                raise ExprSyntaxError(f"unknown function {name!r}", callee.pos, name)
            fn = GLOBALS[name]
            args = [self.compile(a, bound) for a in raw_args]

            def call_global(env: Env) -> Any:
                env.ctx.spend()
                values = [a(env) for a in args]
                return _held(env, fn, values)

            return call_global
        if callee.kind != "member":
            raise ExprSyntaxError("only functions and methods can be called", n.pos, "(")
        name = callee.value
        if name not in methods.NAMES:
            raise ExprSyntaxError(f"unknown method {name!r}", callee.pos, name)
        target_node = callee.args[0]
        on_file = target_node.kind == "ident" and target_node.value == "file" and "file" not in bound
        if on_file and name == "hasTag" and all(a.kind == "lit" and isinstance(a.value, str) for a in raw_args):
            matcher = methods.tag_matcher([a.value for a in raw_args])
            return lambda env: matcher(env.rec) if env.rec is not None else False
        if on_file and name in methods.FILE:
            file_args = [self.compile(a, bound) for a in raw_args]
            file_method = methods.file_method

            def call_file_method(env: Env) -> Any:
                env.ctx.spend()
                rec = env.rec
                if rec is None:
                    return None
                values = [a(env) for a in file_args]
                return _held(env, lambda env, vals: file_method(name, rec, vals, env), values)

            return call_file_method
        target = self.compile(target_node, bound)
        if name in LAMBDA_METHODS:
            inner = bound | {"value", "index", "acc"}
            lambdas = [self.compile(a, inner) for a in raw_args]

            def call_lambda(env: Env) -> Any:
                obj = target(env)
                return _held(env, lambda env, _: methods.call_lambda(name, obj, lambdas, env), [])

            return call_lambda
        args = [self.compile(a, bound) for a in raw_args]
        call = methods.call

        def call_method(env: Env) -> Any:
            env.ctx.spend()
            obj, values = target(env), [a(env) for a in args]
            return _held(env, lambda env, vals: call(name, obj, vals, env), values)

        return call_method

    def _unary(self, n: Node, bound: frozenset[str]) -> Fn:
        x = self.compile(n.args[0], bound)
        if n.value == "!":
            return lambda env: not truthy(x(env))
        sign = -1 if n.value == "-" else 1

        def neg(env: Env) -> Any:
            v = x(env)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return sign * v
            if isinstance(v, Duration):
                return v.scaled(sign)
            return None

        return neg

    def _binary(self, n: Node, bound: frozenset[str]) -> Fn:
        a, b, op = self.compile(n.args[0], bound), self.compile(n.args[1], bound), n.value
        if op == "&&":
            return lambda env: truthy(a(env)) and truthy(b(env))
        if op == "||":
            return lambda env: truthy(a(env)) or truthy(b(env))
        if op in ("==", "!="):
            negate = op == "!="

            def equality(env: Env) -> bool:
                x, y = a(env), b(env)
                t = type(x)
                if t is type(y) and t in _PLAIN:  # the common case: no coercion needed
                    return bool(x == y) is not negate
                return eq(*_coerce_pair(x, y)) is not negate

            return equality
        if op in ("<", "<=", ">", ">="):
            tests: dict[str, Callable[[int], bool]] = {
                "<": lambda c: c < 0,
                "<=": lambda c: c <= 0,
                ">": lambda c: c > 0,
                ">=": lambda c: c >= 0,
            }
            test = tests[op]

            def comparison(env: Env) -> bool:
                x, y = a(env), b(env)
                if type(x) in _NUMBERS and type(y) in _NUMBERS:
                    return test((x > y) - (x < y))
                c = cmp(*_coerce_pair(x, y))
                return c is not None and test(c)

            return comparison
        arith = arithmetic
        if op == "+":  # it builds texts and lists: held (`_held`)

            def plus(env: Env) -> Any:
                value = arith(op, a(env), b(env))
                if type(value) in _BUILT:
                    env.ctx.budget.hold(held_size(value))
                return value

            return plus
        return lambda env: arith(op, a(env), b(env))


_PLAIN = frozenset({str, int, float, bool})
_BUILT = frozenset({str, list, dict})


def _held(env: Env, fn: Callable[[Env, list[Any]], Any], values: list[Any]) -> Any:
    """`fn(env, values)`, a function's or method's call: what it held while it ran (a map's items)
    is given back and its value held in their place (`[limits] max_eval_bytes`, `Budget.hold`)."""
    budget = env.ctx.budget
    before = budget.held
    value = fn(env, values)
    budget.held = before
    if type(value) in _BUILT:
        budget.hold(held_size(value))
    return value


_NUMBERS = frozenset({int, float})


def _property_reader(key: str) -> Fn:
    """`x` / `note.x`: the row's property, converted once per snapshot (see `read_property`)."""

    def prop(env: Env) -> Any:
        rec = env.rec
        return read_property(rec, key, env.ctx.snapshot) if rec is not None else None

    return prop


def _coerce_pair(x: Any, y: Any) -> tuple[Any, Any]:
    """A date compared with a string parses the string; a number with a numeric string reads it."""
    if isinstance(x, Date) and isinstance(y, str):
        return x, dates.parse_date(y) or y
    if isinstance(y, Date) and isinstance(x, str):
        return dates.parse_date(x) or x, y
    if isinstance(x, (int, float)) and not isinstance(x, bool) and isinstance(y, str):
        return x, _num_or(y)
    if isinstance(y, (int, float)) and not isinstance(y, bool) and isinstance(x, str):
        return _num_or(x), y
    return x, y


def _num_or(s: str) -> Any:
    try:
        return float(s)
    except ValueError:
        return s


def _duration_of(v: Any) -> Duration | None:
    if isinstance(v, Duration):
        return v
    if isinstance(v, str):
        return dates.parse_duration(v)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return Duration(0, float(v))
    return None


def arithmetic(op: str, x: Any, y: Any) -> Any:
    numeric = (
        isinstance(x, (int, float))
        and isinstance(y, (int, float))
        and not isinstance(x, bool)
        and not isinstance(y, bool)
    )
    if numeric:
        if op == "+":
            return x + y
        if op == "-":
            return x - y
        if op == "*":
            return x * y
        if op == "/":
            return x / y if y != 0 else (float("nan") if x == 0 else float("inf") if x > 0 else float("-inf"))
        if op == "%":
            return float("nan") if y == 0 else x - y * int(x / y)
    if isinstance(x, Date):
        if op == "-" and isinstance(y, Date):
            return x.millis() - y.millis()
        if op in ("+", "-"):
            d = _duration_of(y)
            if d is not None:
                return dates.add(x, d, 1 if op == "+" else -1)
    if isinstance(x, Duration):
        if op in ("*", "/") and isinstance(y, (int, float)) and not isinstance(y, bool):
            if op == "/" and y == 0:
                raise EvalError("division of a duration by zero")
            return x.scaled(y if op == "*" else 1 / y)
        if op in ("+", "-"):
            if isinstance(y, Date) and op == "+":
                return dates.add(y, x)
            d = _duration_of(y)
            if d is not None:
                return x.plus(d, 1 if op == "+" else -1)
    if op == "+":
        if isinstance(x, list) and isinstance(y, list):
            limits.check_items(len(x) + len(y))
            return x + y
        if isinstance(x, str) or isinstance(y, str):
            left, right = ("" if x is None else to_string(x)), ("" if y is None else to_string(y))
            limits.check_chars(len(left) + len(right))
            return left + right
    if x is None or y is None:
        return None
    raise EvalError(f"cannot apply {op!r} to {_kind(x)} and {_kind(y)}")


def _kind(v: Any) -> str:
    from service.bases.values import type_name

    return type_name(v)
