"""What a consolidation run is and what it reports: each job's report, the run's result (what is
saved of it, `plane_state.summary`, and what it recorded, counted per caller), a run a caller
launched; `settled`, the wait a run's writes are not cut by; and `hand_back`, its memory given
back at its end.

Memory after a run (100k notes, `tests.bench.bench_calls_beside_plane --linger-s`, docs/benchmarks.md):
of the ~225 MB a run left above the server's idle memory, ~90 MB was memory the C allocator had
freed and kept (the heap trimmer's minute gave it back; `hand_back` now does at the run's end), ~6 MB
SQLite page caches, no reference cycle (`gc.collect` freed nothing), and the rest Python's own
small-object arenas: 264 of 1 MiB held by 94 MB of live objects, which no trim returns. Each job's
context is dropped at its end and the databases' threads keep none of its reads
(`service.storage.db.in_thread`): the audit's 100k titles were held through the topic maps' graph.
Then (2026-12-05, `sys._debugmallocstats` before and after a launched run at 100k): 100 arenas idle,
184 after, yet only ~8 MB more in live blocks: arenas the run filled, each kept by a few objects
still alive. Letting go of the kept run's 2,332 findings (`Recorded.pack`, in `hand_back`) freed
42 of them; the ~41 left hold what the run imported on its way (numpy.ma, the jobs' modules) and
~38 MB of empty pools among them, which CPython cannot move."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar

from service import malloc
from service.plane.findings import Recorded
from service.storage.db import Database

log = logging.getLogger(__name__)
T = TypeVar("T")
COUNTED = ("new", "again", "gone")  # a run's counts of its findings
trim_heap: Callable[[], object] = malloc.trim  # a seam for tests (the heap trimmer's minute keeps its own)


async def settled(write: Awaitable[T]) -> T:
    """`write` to its end even when the run is cancelled meanwhile (then raising `CancelledError`
    after it): a cancel's answer and the next run see what it wrote, never a write under way."""
    one = asyncio.ensure_future(write)
    try:
        return await asyncio.shield(one)
    except asyncio.CancelledError:
        while not one.done():  # however often the run is cancelled
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait({one})
        raise


@dataclass
class JobReport:
    job: str
    status: str  # ran | skipped | failed
    reason: str | None = None
    findings: int = 0
    seconds: float = 0.0
    run_id: str = ""  # the run it is of (a run of some jobs keeps the other jobs' reports)
    capped: bool = False  # stopped at `max_findings`: what it did not reach is not gone


@dataclass
class RunResult:
    run_id: str
    vault_id: str
    started_at: float
    ended_at: float = 0.0
    jobs: list[JobReport] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # new / again / gone
    auto_applied: list[str] = field(default_factory=list)
    cursors: dict[str, float] = field(default_factory=dict)  # each job's, after this run (`job_since`)
    kept: dict[str, dict[str, Any]] = field(default_factory=dict)  # each job's own memory (`JobContext.kept`)
    trigger: str = "manual"
    went_on_at: float | None = None  # a run that went on after a stop: when its part that went on began
    recorded: Recorded = field(default_factory=Recorded)  # not saved: counts for one caller come from it
    earlier: dict[str, int] = field(default_factory=dict)  # not saved: new / again / gone before a stop

    def summary(self) -> dict[str, Any]:
        """What is saved of the run (`plane_state.summary`): all but what it recorded."""
        saved = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("recorded", "earlier")}
        return {**saved, "jobs": [asdict(r) for r in self.jobs], "counts": dict(self.counts)}

    def whole(self, also: Recorded | None = None) -> dict[str, int]:
        """New / again / gone over the whole run: a run that went on after a stop counts its part
        before (`earlier`, as its last job recorded them) with this part's (and `also`: a job's
        record not taken in yet). The jobs of the two parts are others, so no finding is counted
        twice: the sum is what the run found, as one run in one go would count it."""
        parts = [self.earlier, self.recorded.counts(), also.counts() if also is not None else {}]
        return {k: sum(int(part.get(k, 0)) for part in parts) for k in COUNTED}


@dataclass
class Launched:
    """A run started by `launch` (run_consolidation, its MCP task): it runs on in the background."""

    run_id: str
    vault_id: str
    task: asyncio.Task[RunResult]
    created_at: float
    only: list[str] | None = None
    ended_at: float | None = None
    result: RunResult | None = None  # once it began: what it recorded so far (a cancelled run's answer)


async def hand_back(result: RunResult, *dbs: Database) -> None:
    """At a run's end: its findings let go, what counting them needs kept (`Recorded.pack`: a
    launched run's result is kept for its answer), the page caches of the databases' connections
    not in use, then the memory the C allocator freed (`service.malloc.trim`, off the loop), given
    back to the OS at once rather than at the heap trimmer's next minute. A failure is logged
    (memory hygiene never fails a run)."""
    result.recorded.pack()
    for db in dbs:
        try:
            await db.release_memory()
        except Exception:  # noqa: BLE001
            log.warning("releasing memory after a run failed", exc_info=True)
    await asyncio.to_thread(trim_heap)
