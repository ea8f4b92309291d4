"""A run gives its memory back as it goes and at its end. At 100k notes a run left ~230 MB above
the server's idle memory until the heap trimmer's next minute (docs/benchmarks.md): ~90 MB the C
allocator had freed and kept, and what a job held was kept through the jobs after it (one context
for the whole run: the audit's `spare` held its 100k titles through the topic maps' graph).

Through run_consolidation: what a job's context and its reads held is gone (collected) when the next
job runs (a database connection's thread kept its last job, and all it closed over, until its next:
`service.storage.db.in_thread`),
and at the run's end the databases' page caches are released and the heap trimmed, after the last
job and before the call's answer."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from pathlib import Path

import pytest

from service.plane import runs
from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from tests.conftest import started

VAULT = {"Home.md": "# Home\n\nSee [[Other]].\n", "Other.md": "# Other\n"}


class Big:
    """Stands for what a job reads of a large vault (its rows, its titles)."""


class Holder:
    """Keeps a `Big` in its context, as the audit keeps its titles in `spare`."""

    name = "holder"
    needs: tuple[Need, ...] = ()

    def __init__(self) -> None:
        self.ref: weakref.ref[Big] | None = None

    async def run(self, ctx: JobContext) -> list[Finding]:
        big = Big()
        self.ref = weakref.ref(big)
        ctx.spare["orphan"] = lambda detail: big is not None and bool(detail)
        await ctx.read(lambda c: (big, c.execute("SELECT 1").fetchone())[1])  # a read closing over it
        return []


class Next:
    name = "next"
    needs: tuple[Need, ...] = ()

    def __init__(self, holder: Holder, order: list[str]) -> None:
        self.holder, self.order = holder, order
        self.held_still: bool | None = None

    async def run(self, ctx: JobContext) -> list[Finding]:
        gc.collect()
        assert self.holder.ref is not None
        self.held_still = self.holder.ref() is not None
        self.order.append("last job")
        return []


async def test_a_jobs_context_goes_before_the_next_and_the_heap_is_trimmed_at_the_end(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    monkeypatch.setattr(runs, "trim_heap", lambda: order.append("trim"), raising=False)
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        holder = Holder()
        after = Next(holder, order)
        vg.app.plane.jobs = (holder, after)
        for db in (vg.app.db, vg.app.state):
            real = db.release_memory

            async def release(real: Callable[[], object] = real) -> int:
                order.append("release")
                return await real()  # type: ignore[misc]

            monkeypatch.setattr(db, "release_memory", release)
        out = await vg.ok("run_consolidation", wait=True)
        assert [j["status"] for j in out["jobs"]] == ["ran", "ran"]
        assert after.held_still is False  # the holder's context was dropped at its end
        assert order == ["last job", "release", "release", "trim"], order
