"""What a consolidation run is and what it reports: each job's report, the run's result (what is
saved of it, `plane_state.summary`, and what it recorded, counted per caller), a run a caller
launched, and `settled`, the wait a run's writes are not cut by."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar

from service.plane.findings import Recorded

T = TypeVar("T")


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
    recorded: Recorded = field(default_factory=Recorded)  # not saved: counts for one caller come from it

    def summary(self) -> dict[str, Any]:
        """What is saved of the run (`plane_state.summary`): all but what it recorded."""
        saved = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "recorded"}
        return {**saved, "jobs": [asdict(r) for r in self.jobs], "counts": dict(self.counts)}


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
