"""One call's time budget for working out a multi-note link rewrite (a move's, a rename's,
`rewrite_links'`): `[limits] max_rewrite_seconds` on the wall clock, from the start of the plan.

`rewrite_note` bounds one note (`[limits] max_eval_seconds`); nothing bounded the call: a folder
move whose files are linked from tens of thousands of notes read and rewrote each of them, every
one under the per-note bound, for minutes while it held the vault's move lock. The plan's scan
(`service.graph.moves.scan`) now `check`s this clock after each note it examines; past the budget
it raises `compute_budget_exceeded` (limit `seconds`) saying how many of the candidate notes it
examined. The plan writes nothing, so a refusal here leaves the vault as it was, and a preview, a
dry run, a confirmation's preview and the real call are refused alike (they plan the same way).

The writes a plan then makes (`service.vault.commit`) are not timed: they are all or nothing, and
their number is what the bounded plan found; cutting them short would only undo them all.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from service.budget import configured
from service.errors import ComputeBudgetExceeded

Clock = Callable[[], float]


class PlanClock:
    """The deadline of one call's rewrite plan, started when made (`seconds`: the configured
    `max_rewrite_seconds` unless given; `clock`: `time.monotonic` unless a test gives its own)."""

    __slots__ = ("_clock", "deadline", "seconds")

    def __init__(self, seconds: float | None = None, clock: Clock = time.monotonic) -> None:
        self.seconds = configured().max_rewrite_seconds if seconds is None else seconds
        self._clock = clock
        self.deadline = clock() + self.seconds

    def check(self, examined: int, total: int) -> None:
        """After the `examined`-th of `total` candidate notes: `compute_budget_exceeded` past the deadline."""
        if self._clock() > self.deadline:
            raise too_long(self.seconds, examined, total)


def too_long(seconds: float, examined: int, total: int) -> ComputeBudgetExceeded:
    return ComputeBudgetExceeded(
        f"working out this call's link rewrites exceeded its time budget ({seconds:g} s): "
        f"{examined} of {total} notes that may link to the changed files examined",
        details={
            "limit": "seconds",
            "max_seconds": seconds,
            "setting": "max_rewrite_seconds",
            "examined": examined,
            "total": total,
        },
        hint="Nothing was changed. Fewer notes link to a smaller change: move a folder's subfolders one at a "
        "time, or rewrite fewer links at once; an operator can raise [limits] max_rewrite_seconds "
        "(VAULTGATE_LIMITS__MAX_REWRITE_SECONDS).",
    )
