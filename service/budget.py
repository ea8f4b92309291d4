"""Budget: one evaluation's share of `[limits]` — steps, a deadline, value sizes, nesting depth.

Every evaluator (Dataview, Bases, JSONLogic), decoder and expander draws from a `Budget`:
`spend` counts steps and, every few hundred, checks the deadline (so a loop is checked inside,
not only between rows); `check_chars` / `check_items` are called with the size a function *will*
produce, before it builds it, and an evaluator that keeps values side by side (the Tasks
query's expressions: names, lists, sort keys; Dataview's: a map's items, SORT / GROUP BY keys,
FLATTEN's lists) counts them with `hold` (sizes by `held_size`) against one sum,
`[limits] max_eval_bytes`, giving a step's values back when they are gone; `timed` runs a
regular expression on the `regex` package (whose matching takes a timeout, unlike `re`) so
that it ends by the deadline. Each of these limits, once hit, raises
`compute_budget_exceeded` with `details.limit` naming it.

The `regex` package's timeout counts the process's CPU time, not the clock on the wall: on a
busy machine (load 10 on 2 cores) a match given 2 s ended after 7.6 s, and a Dataview
`regextest` given the 10 s budget answered after 13.5-19 s. `timed` therefore runs a match first
with a short slice (`REGEX_SLICE_S` of CPU: nearly every match ends in it), and when that runs
out, again with a slice four times as long, and so on, the last one with all the time left;
each slice that ran out tells how much CPU the process got per second of wall clock, and no
slice is given more CPU than that share of the time left. The match then ends by the deadline
give or take the change in that share. A match that needs more than a slice costs more CPU
(the slices that ran out are run again), and one that needs nearly the whole budget may run out
where a single call would just have ended.

Compiling comes before any of that: the `regex` package copies the body of a counted repeat
`x{n}` n times when it compiles the expression, and no timeout covers that (`x{99999999}`, 13
bytes, took 2.8 GB and ended in MemoryError; `x{9999999}` 12 s). Every caller's expression is
therefore compiled by `compile_regex`, which refuses one that would unroll past
`MAX_REGEX_UNITS` items (limit `regex_size`) before the engine sees it.

Nesting (`limits.max_depth`) is checked by the parsers as they read (a syntax error), and a
note's frontmatter by `service.markdown.frontmatter` before it is built.

An evaluation run in a worker thread for a call that is cancelled meanwhile (the client's
notifications/cancelled, its connection gone) would run on to its deadline: `stop()` (from the
awaiting side, any thread) makes its next look at the clock raise `compute_budget_exceeded`
(limit `cancelled`), which nobody receives but which ends the work.

Functions deep inside an evaluator (string helpers, a list method) reach the running budget
through `current()`: the evaluator makes its budget current for the thread it runs in with
`active()`. Outside any evaluation `current()` is a budget with the app's limits and no step
ceiling, so the size checks hold everywhere. The app's limits (`configured()`) are the `[limits]`
of the app the running code belongs to: `within(limits)` makes them so for the code run inside
(a context variable, as the journal's recorder: the dispatcher around each call, the app around
the start of its background work, whose tasks and worker threads inherit it), so two apps in one
process each hold their own; code no app runs sees the process's, the defaults unless the app
that is the process (`vaultgate serve` / `stdio`) `configure`d them. Imports only the settings
and the error tree.
"""

from __future__ import annotations

import importlib
import math
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from service.errors import ComputeBudgetExceeded
from service.settings.limits import LimitsSettings

if TYPE_CHECKING:
    import regex

DEFAULT_LIMITS = LimitsSettings()
_CHECK_EVERY = 256  # steps between two looks at the clock
REGEX_SLICE_S = 0.05  # CPU seconds a regular expression is first given (`Budget.timed`)
# Items (characters, classes, groups) a compiled expression may unroll to: `x{10000}` compiles
# in ~7 ms; `x{100000}` took 0.1-0.2 s and 25 MB, and `(?:x|yz){300000}` once crashed the process.
MAX_REGEX_UNITS = 10_000
_COUNT = re.compile(r"\{\s*(\d+)")  # the smallest count of `{m}`, `{m,}`, `{m,n}` (and anything like them)
T = TypeVar("T")


class Budget:
    """Steps, wall-clock time and value sizes one evaluation may use."""

    def __init__(
        self,
        limits: LimitsSettings = DEFAULT_LIMITS,
        *,
        max_steps: int | None = None,
        max_seconds: float | None = None,
        what: str = "the evaluation",
        hint: str | None = None,
        steps_name: str = "max_steps",
    ) -> None:
        self.limits = limits
        self.max_steps = max_steps
        self.left = max_steps if max_steps is not None else math.inf
        self.max_seconds = max_seconds
        self.deadline = time.monotonic() + max_seconds if max_seconds is not None else math.inf
        self.what = what
        self.hint = hint
        self.steps_name = steps_name  # the detail naming the step ceiling (JSONLogic says max_ops)
        self._tick = 0
        self.held = 0  # characters and items the evaluation's values hold together (`hold`)
        self.kept = 0  # of which cached until the evaluation ends, never given back (`keep`)
        self.stopped = False  # set by `stop()`, read at each look at the clock

    def stop(self) -> None:
        """End the evaluation at its next look at the clock (its call was cancelled or is over)."""
        self.stopped = True

    # -- steps and time ----------------------------------------------------------------------

    def spend(self, n: int = 1) -> None:
        self.left -= n
        if self.left < 0:
            raise self.exceeded("steps")
        self.look(n)

    def look(self, n: int = 1) -> None:
        """`n` units of work that use no steps (a sort's comparisons, rows a command already paid
        for): the clock and a `stop()` are looked at as often as `spend` looks at them."""
        self._tick += n
        if self._tick >= _CHECK_EVERY:
            self._tick = 0
            if time.monotonic() > self.deadline:
                raise self.exceeded("seconds")
            if self.stopped:
                raise self.exceeded("cancelled")

    def timeout(self) -> float:
        """Seconds left for one regular-expression call (the default evaluation time outside a query)."""
        if self.deadline == math.inf:
            return self.limits.max_eval_seconds
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self.exceeded("seconds")
        return left

    def timed(self, run: Callable[[float], T]) -> T:
        """`run(timeout)` — one `regex` call with `timeout` in CPU seconds, raising `TimeoutError`
        past it — ended by the deadline (module docstring: slices of growing length, each at
        most the process's measured CPU share of the time left). `run` may be called more than
        once: it must start afresh each time. Past the deadline: `compute_budget_exceeded`."""
        if self.deadline == math.inf:  # outside a query: one call with the default time
            try:
                return run(self.limits.max_eval_seconds)
            except TimeoutError:
                raise self.exceeded("seconds", regex=True) from None
        cpu = REGEX_SLICE_S
        share = 1.0  # CPU seconds the process gets per second on the wall clock (at most 1)
        while True:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise self.exceeded("seconds", regex=True)
            allowed = left * share
            # The last slice is all the time left, once the next would be half of it or more.
            timeout = cpu if cpu < allowed / 2 else allowed
            started = time.monotonic()
            try:
                return run(timeout)
            except TimeoutError:
                if timeout >= allowed:
                    raise self.exceeded("seconds", regex=True) from None
                took = time.monotonic() - started
                share = min(1.0, timeout / took) if took > 0 else 1.0
                cpu *= 4

    # -- sizes and depth ---------------------------------------------------------------------

    def check_chars(self, n: int) -> None:
        """Before building a string of `n` characters."""
        if n > self.limits.max_value_bytes:
            raise self.exceeded("bytes", size=n)

    def check_items(self, n: int) -> None:
        """Before building a list of `n` items."""
        if n > self.limits.max_list_items:
            raise self.exceeded("items", size=n)

    def hold(self, n: int) -> None:
        """`n` characters or items just built, held with everything the evaluation built before
        (each value alone is bounded by `check_chars` / `check_items`; their sum by
        `limits.max_eval_bytes`). An evaluator gives back what one step built once that step's
        values are gone: it resets `held` to what it was before the step."""
        self.held += n
        if self.held + self.kept > self.limits.max_eval_bytes:
            raise self.exceeded("held", size=self.held + self.kept)

    def keep(self, n: int) -> None:
        """`n` characters or items cached until the evaluation ends (a Bases formula's value, a
        column's cell): held as by `hold`, but no step's giving back (resetting `held`) drops them."""
        self.kept += n
        self.hold(0)

    def exceeded(self, limit: str, **extra: Any) -> ComputeBudgetExceeded:
        details: dict[str, Any] = {"limit": limit, **extra}
        if limit == "steps":
            details[self.steps_name] = self.max_steps
        elif limit == "seconds":
            details["max_seconds"] = self.max_seconds
        elif limit == "bytes":
            details["max_value_bytes"] = self.limits.max_value_bytes
        elif limit == "items":
            details["max_list_items"] = self.limits.max_list_items
        elif limit == "held":
            details["max_eval_bytes"] = self.limits.max_eval_bytes
        elif limit == "regex_size":
            details["max_regex_units"] = MAX_REGEX_UNITS
        return ComputeBudgetExceeded(
            f"{self.what} exceeded its {_NAMES.get(limit, limit)} budget",
            details=details,
            hint=self.hint if self.hint and limit in ("steps", "seconds") else _HINTS.get(limit),
        )

    @contextmanager
    def active(self) -> Iterator[Budget]:
        """Make this budget `current()` for the code run inside (one thread's context)."""
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)


_NAMES = {
    "steps": "step",
    "seconds": "time",
    "bytes": "value size",
    "items": "list size",
    "held": "memory",
    "regex_size": "regular-expression size",
    "cancelled": "call's",  # "... exceeded its call's budget": the call was cancelled
}
_HINTS = {
    "regex_size": "A counted repeat such as x{100000} is copied that many times when the expression is "
    "compiled: use a smaller count, or + / * (x+ matches any run of x).",
    "bytes": "A function would build a string past [limits] max_value_bytes: use smaller counts or shorter inputs.",
    "items": "A function would build a list past [limits] max_list_items: filter or slice the list first.",
    "held": "The values the evaluation builds and keeps together (names, lists, a map's items, sort and group "
    "keys, cached formulas) would pass [limits] max_eval_bytes: build fewer or shorter values.",
    "seconds": "Narrow the query, anchor regular expressions, or avoid nested quantifiers.",
}

_CURRENT: ContextVar[Budget | None] = ContextVar("vaultgate_budget", default=None)
_process = Budget()  # code no app runs: the process's limits, no step or time ceiling
_APP: ContextVar[Budget | None] = ContextVar("vaultgate_app_limits", default=None)  # `within`


def configure(limits: LimitsSettings) -> None:
    """Set the process's `[limits]`: only the app that is the process (`vaultgate serve` / `stdio`)."""
    global _process
    _process = Budget(limits)


def outside(limits: LimitsSettings) -> Budget:
    """The budget outside any evaluation of an app with `limits` (no step or time ceiling), for `within`."""
    return Budget(limits)


@contextmanager
def within(outer: Budget) -> Iterator[None]:
    """Run the code inside with `outer`'s limits (`outside`) as the app's (`configured`, and
    `current()` outside an evaluation): in this context and the tasks and threads started from it."""
    token = _APP.set(outer)
    try:
        yield
    finally:
        _APP.reset(token)


def _outer() -> Budget:
    outer = _APP.get()
    return outer if outer is not None else _process


def configured() -> LimitsSettings:
    """The `[limits]` of the app running this code (`within`; else the process's)."""
    return _outer().limits


def current() -> Budget:
    """The running evaluation's budget (the app's limits, no step or time ceiling outside one)."""
    budget = _CURRENT.get()
    return budget if budget is not None else _outer()


def held_size(value: Any) -> int:
    """Characters and items a value an evaluation built holds, for `Budget.hold`: a text's
    length, a list's or a dict's items with theirs (each list or dict once: Dataview's list items
    are also their parents' `children`), anything else 1. Walked without recursion: a list nested
    thousands deep (a note's indented list items) is no RecursionError."""
    kind = type(value)
    if kind is str:
        return len(value)
    if kind is not list and kind is not dict:
        return 1
    total, seen, stack = 0, set(), [value]
    while stack:
        container = stack.pop()
        if id(container) in seen:
            continue
        seen.add(id(container))
        total += len(container)
        for item in container if type(container) is list else container.values():
            inner = type(item)
            if inner is str:
                total += len(item)
            elif inner is list or inner is dict:
                stack.append(item)
            else:
                total += 1
    return total


def check_chars(n: int) -> None:
    current().check_chars(n)


def check_items(n: int) -> None:
    current().check_items(n)


def hold(n: int) -> None:
    current().hold(n)


def regex_call(compiled: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """`compiled.<method>(*args)` on the `regex` package, ended by the running budget's deadline
    (`Budget.timed`); a pattern that runs past it raises `compute_budget_exceeded` (limit
    `seconds`). The call may be made more than once: a callable argument (a `sub` replacement)
    that keeps a count across calls counts the slices that ran out too."""
    call = getattr(compiled, method)
    return current().timed(lambda timeout: call(*args, timeout=timeout, **kwargs))


def compile_regex(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """`regex.compile(pattern, flags)`, refused with `compute_budget_exceeded` (limit `regex_size`)
    when its counted repeats would unroll past `MAX_REGEX_UNITS` items (module docstring). An
    invalid expression raises the engine's `regex.error`, as `regex.compile` does (one with counts
    that large is refused for its size first); so does one nested past the depth the engine's
    parser, written in Python, recurses to (`((((a))))` 400 deep), which would be a RecursionError."""
    import regex  # the third-party engine is loaded by the first regular expression, not at start-up

    try:
        units = _unrolled(pattern, flags)
        if units > MAX_REGEX_UNITS:
            raise current().exceeded("regex_size", size=units)
        return regex.compile(pattern, flags)
    except RecursionError:
        raise regex.error("the expression is nested too deeply", pattern) from None


def _unrolled(pattern: str, flags: int) -> int:
    """How many items `pattern` unrolls to, or a bound above it. First without parsing: no more
    than its length times every count in it multiplied together (nearly every expression ends
    here); past the ceiling, counted on the engine's own parse of it, where only nested counts
    multiply (`\\w{50} \\w{50}` is 101 items)."""
    bound = len(pattern)
    for count in _COUNT.findall(pattern):
        bound *= max(1, min(int(count), MAX_REGEX_UNITS + 1))
        if bound > MAX_REGEX_UNITS:
            return _parsed_units(pattern, flags, bound)
    return bound


def _parsed_units(pattern: str, flags: int, bound: int) -> int:
    """Items of the engine's parse tree, a repeat's body counted `min_count` times (the parse is
    cheap: the copies are made only by the compile); `bound` where it cannot be parsed here (an
    invalid expression with large counts is refused for its size, not its syntax)."""
    core: Any = importlib.import_module("regex._regex_core")  # the parser `regex.compile` runs first

    global_flags = flags
    try:
        while True:  # as `regex.compile` does: a global flag set mid-pattern parses it again
            source = core.Source(pattern)
            info = core.Info(global_flags, source.char_type, {})
            info.guess_encoding = core.UNICODE
            source.ignore_space = bool(info.flags & core.VERBOSE)
            try:
                tree = core._parse_pattern(source, info)
                break
            except core._UnscopedFlagSet:
                global_flags = info.global_flags
    except Exception:  # noqa: BLE001 - invalid, or another engine version's parser: keep the bound
        return bound
    units = 0
    todo: list[tuple[Any, int]] = [(tree, 1)]
    while todo:
        node, times = todo.pop()
        count = getattr(node, "min_count", None)
        if isinstance(count, int):
            times *= max(1, count)
        elif not isinstance(node, core.Sequence):  # a sequence compiles to its items, nothing more
            units += times
            if units > MAX_REGEX_UNITS:
                return units
        for value in vars(node).values():
            for child in value if isinstance(value, list) else (value,):
                for item in child if isinstance(child, list) else (child,):
                    if isinstance(item, core.RegexBase):
                        todo.append((item, times))
    return units
