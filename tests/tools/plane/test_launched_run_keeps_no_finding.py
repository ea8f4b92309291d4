"""A run a caller launched (run_consolidation, its MCP task) is kept for its answer, up to the last
200 (`Plane.launched`): at its end it lets go of its findings and keeps, in one string, only what
counting them for one caller needs (`Recorded.pack`). Before, each kept run held every finding it
recorded (title, detail, plan), made job by job among the run's own short-lived objects, and so
held Python's small-object arenas the run had filled (at 10^5 notes, 42 MiB no trim returned).

Through the dispatch chain; the findings' references are counted (CPython frees an object when its
last reference goes): nothing is timed."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from service.tools.plane.answers import run_out
from tests.conftest import started

VAULT = {"Home.md": "# Home\n\nSee [[Other]].\n", "Other.md": "# Other\n", "Private/Note.md": "# Note\n"}


class Found:
    """Returns the findings the test made, and keeps them too (the test counts their references)."""

    needs: tuple[Need, ...] = ()

    def __init__(self, name: str, paths: list[str]) -> None:
        self.name = name
        self.made = [
            Finding(job=name, kind="orphan", key=f"orphan:{name}:{p}", title=p, paths=[p], detail={"p": p})
            for p in paths
        ]

    async def run(self, ctx: JobContext) -> list[Finding]:
        return list(self.made)


async def test_a_launched_run_keeps_no_finding_and_counts_as_before(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        first, second = Found("first", ["Home.md", "Private/Note.md"]), Found("second", ["Other.md"])
        vg.app.plane.jobs = (first, second)
        made = [*first.made, *second.made]
        alone = [sys.getrefcount(f) for f in made]  # held by the test only

        out = await vg.ok("run_consolidation", wait=True)
        assert (out["new"], out["again"], out["gone"]) == (3, 0, 0), out
        kept = vg.app.plane.launched[out["run_id"]].result
        assert kept is not None and kept.recorded.found == []
        assert [sys.getrefcount(f) for f in made] == alone  # the kept run holds none of them

        # what it kept still counts them, for every caller and for one a path rule restricts
        whole = run_out(kept)
        assert (whole.new, whole.again, whole.gone) == (3, 0, 0)
        assert [(j.job, j.findings) for j in whole.jobs] == [("first", 2), ("second", 1)]
        public = run_out(kept, lambda paths: not any(p.startswith("Private/") for p in paths))
        assert (public.new, public.again, public.gone) == (2, 0, 0)
        assert [(j.job, j.findings) for j in public.jobs] == [("first", 1), ("second", 1)]
        assert kept.recorded.ids() == {f.id for f in made}

        # the next run finds one again and one no more: counted from what it kept, too
        first.made = first.made[:1]
        again = await vg.ok("run_consolidation", wait=True)
        assert (again["new"], again["again"], again["gone"]) == (0, 2, 1), again
        shown = run_out(vg.app.plane.launched[again["run_id"]].result, lambda paths: paths != ["Private/Note.md"])
        assert (shown.new, shown.again, shown.gone) == (0, 2, 0)
