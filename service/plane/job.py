"""What a consolidation job is: a name, what it needs, and a run that returns findings.

Jobs are plain modules of `service.plane`, one per job, listed in one ordered tuple (`JOBS` in
`service.plane.jobs`), as the dispatch layers are. A job reads what `JobContext` gives it — the
vault's index (read-only, pooled readers), its memory notes as the recall index holds them
(`service.memory.recall`), the state database (captures), the experiential store — and returns
findings (`service.plane.findings`); it never changes anything itself. A job whose need is not
met (`needs`) is skipped with the reason, which `plane_status` shows.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from service.activity import Activity
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
    activity: Activity | None = None
    own_calls: int = 0  # calls of this run itself (run_consolidation: 1)
    gateway: Gateway | None = None  # the inference gateway, for jobs that need "llm"
    all_settings: Settings | None = None  # the whole configuration (ACL, sensitive rules)
    # the running job's own memory, kept from its last run that ran (JSON): where a job that looks at
    # part of the vault a run (the audit's unlinked mentions) goes on from
    kept: dict[str, Any] = field(default_factory=dict)
    # kind -> which of its open findings the run did not look at again (by their detail): not gone
    spare: dict[str, Callable[[dict[str, Any]], bool]] = field(default_factory=dict)

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """`fn` on a pooled reader of the index."""
        return await self.db.run_read(fn)

    async def compute(self, fn: Callable[[Limit], T]) -> T:
        """`fn`, whole-vault work in Python (matching names, building and splitting the link
        graph), in a worker thread: never on the event loop, which it would stop for seconds at
        100k notes (other calls, keep-alive pings). It shares the GIL, which a Python loop lets go
        every few milliseconds. A cancelled run sets the `Limit`'s stop: `fn` ends at its next
        `limit.up()` (raising `Stopped`, unseen), its result unused."""
        from service.graph.analytics import Limit  # not at the server's start (as the jobs themselves)

        limit = Limit()
        try:
            return await asyncio.to_thread(fn, limit)
        except asyncio.CancelledError:
            limit.stop.set()
            raise

    async def pause(self) -> None:
        """Between two pieces of work: while other calls run (beyond `own_calls`, the call that
        started a manual run), let them go first, for at most `PAUSE_S`."""
        await asyncio.sleep(0)
        if self.activity is None:
            return
        loop = asyncio.get_running_loop()
        until = loop.time() + PAUSE_S
        while self.activity.running > self.own_calls and loop.time() < until:  # noqa: ASYNC110 - bounded poll
            await asyncio.sleep(0.02)


class Job(Protocol):
    name: str
    needs: tuple[Need, ...]

    async def run(self, ctx: JobContext) -> list[Finding]:
        """The findings of this job over the vault now."""
        ...
