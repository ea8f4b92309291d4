"""Each job's own cursor, through the dispatch chain: a job skipped in a full run (its inference
gateway down, the index not ready) or failed is retried next run over what the skipped run would
have covered, not only over what changed after it; a job that ran moves on."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from tests.conftest import started
from tests.tools.plane.test_gateway import VAULT, Model, serving, settings

BUDGET = "# Budget\n\nThe budget review moved to March.\n"


async def test_a_summary_skipped_while_the_gateway_is_down_covers_those_changes_next_time(
    make_vault: Callable[..., Path],
) -> None:
    model = Model()
    model.mode = "error"
    async with serving(model) as url, started(make_vault(VAULT), **settings(url)) as vg:
        await vg.indexed()
        for turn in range(2):  # two full runs while the gateway answers errors
            out = await vg.ok("run_consolidation", wait=True)
            report = {j["job"]: j for j in out["jobs"]}["summaries"]
            assert report["status"] == "skipped" and "HTTP 503" in report["reason"], report
            if turn == 0:
                await vg.ok("create_note", path="Work/Budget.md", content=BUDGET)
                await vg.settled()
        model.mode, model.requests = "ok", []
        out = await vg.ok("run_consolidation", wait=True)
        assert {j["job"]: j["status"] for j in out["jobs"]}["summaries"] == "ran"
        assert "budget review moved to March" in json.dumps(model.requests)  # the missed change is sent
        model.requests = []
        await vg.ok("run_consolidation", wait=True)  # it ran: the next run starts where it began
        assert "budget review" not in json.dumps(model.requests)


async def test_a_digest_skipped_while_the_index_is_not_ready_lists_those_changes_next_time(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True)
        await vg.ok("create_note", path="Work/Budget.md", content=BUDGET)
        await vg.settled()
        indexer = vg.indexer()
        indexer.state = "reconciling"  # as right after a start with an empty cache
        try:
            out = await vg.ok("run_consolidation", wait=True)
        finally:
            indexer.state = "ready"
        report = {j["job"]: j for j in out["jobs"]}["digest"]
        assert report["status"] == "skipped" and "not ready" in report["reason"], report
        await vg.ok("run_consolidation", wait=True)
        digests = (await vg.ok("list_findings", kind="digest"))["items"]
        assert len(digests) == 1 and "Budget" in digests[0]["detail"]["text"], digests


async def test_a_failed_job_keeps_its_window_and_a_job_that_ran_moves_on(make_vault: Callable[..., Path]) -> None:
    windows: dict[str, list[float | None]] = {"flaky": [], "steady": []}

    class Seen:
        needs: tuple[Need, ...] = ()

        def __init__(self, name: str) -> None:
            self.name = name
            self.fail = name == "flaky"

        async def run(self, ctx: JobContext) -> list[Finding]:
            windows[self.name].append(ctx.since)
            if self.fail:
                raise RuntimeError("not this time")
            return []

    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        flaky, steady = Seen("flaky"), Seen("steady")
        vg.app.plane.jobs = (flaky, steady)
        starts = []
        for turn in range(3):
            flaky.fail = turn < 2
            out = await vg.ok("run_consolidation", wait=True)
            starts.append((await vg.app.plane.saved(next(iter(vg.app.vaults))))["cursor"])
            assert {j["job"]: j["status"] for j in out["jobs"]} == {
                "flaky": "failed" if turn < 2 else "ran",
                "steady": "ran",
            }
        assert windows["steady"] == [None, starts[0], starts[1]]
        first = windows["flaky"][0]
        assert first is None and windows["flaky"][1] == windows["flaky"][2]  # the first day's window, kept
        assert windows["flaky"][1] is not None and windows["flaky"][1] < starts[0]
        await vg.ok("run_consolidation", wait=True)
        assert windows["flaky"][3] == starts[2]  # it ran: it moves on
