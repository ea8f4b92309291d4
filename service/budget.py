"""Budget: one evaluation's share of `[limits]` — steps, a deadline, value sizes, nesting depth.

Every evaluator (Dataview, Bases, JSONLogic), decoder and expander draws from a `Budget`:
`spend` counts steps and, every few hundred, checks the deadline (so a loop is checked inside,
not only between rows); `check_chars` / `check_items` are called with the size a function *will*
produce, before it builds it; `timeout` is the time left for a regular expression on the `regex`
package (whose matching takes a timeout, unlike `re`). Each of these limits, once hit, raises
`compute_budget_exceeded` with `details.limit` naming it. Nesting (`limits.max_depth`) is
checked by the parsers as they read (a syntax error), and a note's frontmatter by
`service.markdown.frontmatter` before it is built.

Functions deep inside an evaluator (string helpers, a list method) reach the running budget
through `current()`: the evaluator makes its budget current for the thread it runs in with
`active()`. Outside any evaluation `current()` is a budget with the process's limits and no step
ceiling, so the size checks hold everywhere. The process's limits are `[limits]` as the
composition root `configure`s them (the frontmatter reader in the indexer and its worker
processes has no settings object of its own), the defaults until then. Imports only the
settings and the error tree.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from service.errors import ComputeBudgetExceeded
from service.settings.limits import LimitsSettings

DEFAULT_LIMITS = LimitsSettings()
_CHECK_EVERY = 256  # steps between two looks at the clock


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

    # -- steps and time ----------------------------------------------------------------------

    def spend(self, n: int = 1) -> None:
        self.left -= n
        if self.left < 0:
            raise self.exceeded("steps")
        self._tick += n
        if self._tick >= _CHECK_EVERY:
            self._tick = 0
            if time.monotonic() > self.deadline:
                raise self.exceeded("seconds")

    def timeout(self) -> float:
        """Seconds left for one regular-expression call (the default evaluation time outside a query)."""
        if self.deadline == math.inf:
            return self.limits.max_eval_seconds
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self.exceeded("seconds")
        return left

    # -- sizes and depth ---------------------------------------------------------------------

    def check_chars(self, n: int) -> None:
        """Before building a string of `n` characters."""
        if n > self.limits.max_value_bytes:
            raise self.exceeded("bytes", size=n)

    def check_items(self, n: int) -> None:
        """Before building a list of `n` items."""
        if n > self.limits.max_list_items:
            raise self.exceeded("items", size=n)

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


_NAMES = {"steps": "step", "seconds": "time", "bytes": "value size", "items": "list size"}
_HINTS = {
    "bytes": "A function would build a string past [limits] max_value_bytes: use smaller counts or shorter inputs.",
    "items": "A function would build a list past [limits] max_list_items: filter or slice the list first.",
    "seconds": "Narrow the query, anchor regular expressions, or avoid nested quantifiers.",
}

_CURRENT: ContextVar[Budget | None] = ContextVar("vaultgate_budget", default=None)
_process = Budget()  # outside any evaluation: the process's limits, no step or time ceiling


def configure(limits: LimitsSettings) -> None:
    """Set the process's `[limits]` (the composition root, and each parse worker process)."""
    global _process
    _process = Budget(limits)


def configured() -> LimitsSettings:
    """The process's `[limits]`."""
    return _process.limits


def current() -> Budget:
    """The running evaluation's budget (the process's limits, no step or time ceiling outside one)."""
    budget = _CURRENT.get()
    return budget if budget is not None else _process


def check_chars(n: int) -> None:
    current().check_chars(n)


def check_items(n: int) -> None:
    current().check_items(n)


def regex_call(compiled: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """`compiled.<method>(*args)` on the `regex` package with the running budget's time left;
    a pattern that runs past it raises `compute_budget_exceeded` (limit `seconds`)."""
    budget = current()
    try:
        return getattr(compiled, method)(*args, timeout=budget.timeout(), **kwargs)
    except TimeoutError:
        raise budget.exceeded("seconds", regex=True) from None
