"""One call's time budget for working out a multi-note rewrite: a move's, a rename's,
`rewrite_links'` link rewrites, `rename_tag`'s and `replace_text`'s edits. `[limits]
max_rewrite_seconds` on the wall clock, from the start of the plan.

`rewrite_note` bounds one note (`[limits] max_eval_seconds`); nothing bounded the call: a folder
move whose files are linked from tens of thousands of notes read and rewrote each of them, every
one under the per-note bound, for minutes while it held the vault's move lock; a tag held by
20,000 notes was renamed likewise. The plan's scan (`service.graph.moves.scan`, which
`rename_tag` shares; `replace_text`'s own loop) `check`s this clock after each note it examines;
past the budget it raises `compute_budget_exceeded` (limit `seconds`) saying how many of the
candidate notes it examined. The plan writes nothing, so a refusal here leaves the vault as it
was, and a preview, a dry run, a confirmation's preview and the real call are refused alike
(they plan the same way). The candidates are the notes the caller may read: a note it may not is
neither read nor counted.

The writes a plan then makes (`service.vault.commit`) are not timed: they are all or nothing, and
cutting them short would only undo them all. Their number is bounded instead, here, before any is
made: `count` refuses a plan that would rewrite more than `[limits] max_rewrite_notes` notes
(`compute_budget_exceeded`, limit `notes`) as soon as the scan finds one more. Each write is an
atomic, fsynced, journaled replace of one note (~4 ms on a lightly loaded disk, ~12 ms on a busy
one; the two fsyncs are most of it): 20,000 notes are written in 1-4 minutes.

Both bounds are the `[limits]` of the app serving the call, handed to the clock by the caller
(`ctx.services.settings.limits`, a vault's `limits`): another app in the same process has its own.

`now` is the clock a `PlanClock` reads when none is given: a seam for tests (a clock that moves
one second a read refuses at a known note through the whole dispatch chain, nothing timed).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from service.errors import ComputeBudgetExceeded
from service.settings.limits import LimitsSettings

Clock = Callable[[], float]

now: Clock = time.monotonic


_RAISE = "an operator can raise [limits] max_rewrite_seconds (VAULTGATE_LIMITS__MAX_REWRITE_SECONDS)."
_RAISE_NOTES = "an operator can raise [limits] max_rewrite_notes (VAULTGATE_LIMITS__MAX_REWRITE_NOTES)."


@dataclass(frozen=True)
class PlanWork:
    """What a plan works out, as its refusal tells it: the work, the candidate notes, the way out
    (`advice`, then how an operator raises the limit met; `fewer`: the advice when the number of
    notes is, if it differs)."""

    work: str
    notes: str
    advice: str
    fewer: str | None = None

    @property
    def hint(self) -> str:
        """Past `max_rewrite_seconds`."""
        return self.advice + _RAISE

    @property
    def notes_hint(self) -> str:
        """Past `max_rewrite_notes`."""
        return (self.advice if self.fewer is None else self.fewer) + _RAISE_NOTES


LINKS = PlanWork(
    "working out this call's link rewrites",
    "notes that may link to the changed files",
    "Nothing was changed. Fewer notes link to a smaller change: move a folder's subfolders one at a time, or "
    "rewrite fewer links at once; ",
    "Nothing was changed. Move a folder's subfolders one at a time (each rewrites fewer notes); for one note "
    "linked from this many, ",
)
TAGS = PlanWork(
    "working out this tag rename",
    "notes holding the tag",
    "Nothing was changed. Rename a nested tag (#old/part) at a time, so fewer notes hold each; ",
)
TEXT = PlanWork(
    "working out this replacement",
    "notes with a match",
    "Nothing was changed. Narrow it with folder (one call per folder) or path; ",
)


class PlanClock:
    """The deadline of one call's rewrite plan, started when made (`limits`: the app's, for
    `max_rewrite_seconds` and `max_rewrite_notes`; `clock`: `now` unless a test gives its own;
    `work`: what its refusal says is worked out)."""

    __slots__ = ("_clock", "deadline", "max_notes", "seconds", "work")

    def __init__(self, limits: LimitsSettings, clock: Clock | None = None, work: PlanWork = LINKS) -> None:
        self.seconds = limits.max_rewrite_seconds
        self.max_notes = limits.max_rewrite_notes
        self._clock = now if clock is None else clock
        self.work = work
        self.deadline = self._clock() + self.seconds

    def count(self, rewritten: int, examined: int, total: int) -> None:
        """With `rewritten` notes found to change so far: `compute_budget_exceeded` past `max_notes`."""
        if rewritten > self.max_notes:
            raise too_many(self.max_notes, examined, total, self.work)

    def check(self, examined: int, total: int) -> None:
        """After the `examined`-th of `total` candidate notes: `compute_budget_exceeded` past the deadline."""
        if self._clock() > self.deadline:
            raise too_long(self.seconds, examined, total, self.work)


def too_long(seconds: float, examined: int, total: int, work: PlanWork = LINKS) -> ComputeBudgetExceeded:
    return ComputeBudgetExceeded(
        f"{work.work} exceeded its time budget ({seconds:g} s): {examined} of {total} {work.notes} examined",
        details={
            "limit": "seconds",
            "max_seconds": seconds,
            "setting": "max_rewrite_seconds",
            "examined": examined,
            "total": total,
        },
        hint=work.hint,
    )


def too_many(max_notes: int, examined: int, total: int, work: PlanWork = LINKS) -> ComputeBudgetExceeded:
    return ComputeBudgetExceeded(
        f"this call would rewrite more than {max_notes} notes (found after {examined} of {total} {work.notes} "
        "examined); each is a journaled write of its own, all or nothing",
        details={
            "limit": "notes",
            "max_notes": max_notes,
            "setting": "max_rewrite_notes",
            "examined": examined,
            "total": total,
        },
        hint=work.notes_hint,
    )
