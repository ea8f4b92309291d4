"""What a consolidation job is: a name, what it needs, and a run that returns findings.

Jobs are plain modules of `service.plane`, one per job, listed in one ordered tuple (`JOBS` in
`service.plane.jobs`), as the dispatch layers are. A job reads what `JobContext` gives it — the
vault's index (read-only, pooled readers), its memory notes as the recall index holds them
(`service.memory.recall`), the state database (captures), the experiential store — and returns
findings (`service.plane.findings`); it never changes anything itself. A job whose need is not
met (`needs`) is skipped with the reason, which `plane_status` shows.

A run works beside the server's calls and gives way to them: while a call runs or one began
within `TURN_QUIET_S`, the job waits between two pieces of work (`pause`, on the loop) and at
each check of its worker thread's `Limit` (`give_way`), in all at most as long as it has worked
(plus `WAIT_FLOOR_S`), so that under calls that never stop a run still ends. Python runs one thread at a time, and a
thread busy in Python holds the interpreter in 5 ms turns: without these waits every call of a
burst paid for the run's turns (a 10k vault's audit: `read_note` p95 12 ms against 2.5 ms idle,
docs/benchmarks.md, "calls beside a consolidation run").
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from service.activity import Activity, calls_pause
from service.memory.experiences import ExperienceStore
from service.memory.recall import Recall
from service.plane.findings import Finding
from service.plane.gateway import Gateway
from service.settings import MemorySettings, PlaneSettings, Settings
from service.storage.db import Database
from service.vault.vault import Vault

if TYPE_CHECKING:
    from service.graph.analytics import Limit

Need = Literal["index", "memory", "vectors", "llm"]
T = TypeVar("T")
PAUSE_S = 2.0  # the longest a job waits for other calls at one pause
TURN_QUIET_S = 0.05  # calls began within this long: a burst (an agent's step) is still going on
TURN_WAIT_S = 0.25  # the longest a worker thread waits at one check (under calls back to back the run still moves)
WAIT_FLOOR_S = 2.0  # a run waits for calls at most as long as it has worked, plus this: under calls that never
# stop it still ends, in about twice its time alone
FIRST_WINDOW_S = 86_400.0  # how far back a job that never ran looks (the digest, the summaries)


@dataclass
class JobContext:
    vault: Vault
    db: Database  # the index (read it only)
    state: Database  # captures' queue
    recall: Recall  # the memory notes, parsed, with their vectors when embeddings are on
    experiences: ExperienceStore | None
    settings: PlaneSettings
    memory: MemorySettings
    since: float | None  # this job's cursor: the start of the last full run it ran in (None: never ran)
    now: float
    activity: Activity | None = None  # the server's calls (run_consolidation waiting for the run is set aside)
    gateway: Gateway | None = None  # the inference gateway, for jobs that need "llm"
    all_settings: Settings | None = None  # the whole configuration (ACL, sensitive rules)
    # the running job's own memory, kept from its last run that ran (JSON): where a job that looks at
    # part of the vault a run (the audit's unlinked mentions) goes on from
    kept: dict[str, Any] = field(default_factory=dict)
    # kind -> which of its open findings the run did not look at again (by their detail): not gone
    spare: dict[str, Callable[[dict[str, Any]], bool]] = field(default_factory=dict)
    began: float = field(default_factory=time.monotonic)  # the run's start (`waits_left`)
    waited: float = 0.0  # seconds the run has waited for calls so far

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """`fn` on a pooled reader of the index (the reader's thread lets go of it once called:
        `service.storage.db.in_thread`)."""
        return await self.db.run_read(fn)

    async def compute(self, fn: Callable[[Limit], T]) -> T:
        """`fn`, whole-vault work in Python (matching names, building and splitting the link
        graph), in a worker thread: never on the event loop, which it would stop for seconds at
        100k notes (other calls, keep-alive pings). It shares the GIL, which a Python loop lets go
        every few milliseconds. A cancelled run sets the `Limit`'s stop: `fn` ends at its next
        `limit.up()` (raising `Stopped`, unseen), its result unused."""
        from service.graph.analytics import Limit  # not at the server's start (as the jobs themselves)

        limit = Limit(turns=self.give_way)
        try:
            return await asyncio.to_thread(fn, limit)
        except asyncio.CancelledError:
            limit.stop.set()
            raise

    def waits_left(self) -> float:
        """How long the run may still wait for calls: as long as it has worked, plus `WAIT_FLOOR_S`,
        less what it waited."""
        worked = time.monotonic() - self.began - self.waited
        return max(0.0, worked + WAIT_FLOOR_S - self.waited)

    async def pause(self) -> None:
        """Between two pieces of work: while calls run or one began within `TURN_QUIET_S`, let
        them go first, for at most `PAUSE_S` (and `waits_left`)."""
        await asyncio.sleep(0)
        if self.activity is not None and (within := min(PAUSE_S, self.waits_left())) > 0:
            started = time.monotonic()
            await self.activity.quiet(TURN_QUIET_S, within=within)
            self.waited += time.monotonic() - started

    def give_way(self) -> None:
        """In a worker thread, between two small pieces of work (`Limit.up`): `pause`'s wait, at
        most `TURN_WAIT_S` at a time (and `waits_left`)."""
        if self.activity is not None and (within := min(TURN_WAIT_S, self.waits_left())) > 0:
            self.waited += calls_pause(TURN_QUIET_S, within, among=(self.activity,))


class Job(Protocol):
    name: str
    needs: tuple[Need, ...]

    async def run(self, ctx: JobContext) -> list[Finding]:
        """The findings of this job over the vault now."""
        ...
