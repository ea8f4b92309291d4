"""A written summary no one kept yet is not lost by a later run: the summaries job took the day's
key while `Digests/<day> summary.md` was not there and summarised the notes changed since the last
run only, so the next full run replaced an open summary with one of its own narrower window, and a
run with nothing new marked it `gone` (as the digest's, d05fa489). An open summary is now found
again as it is, a later run's is a finding and a note of its own, and nothing is sent to the model
twice (tests/tools/plane/test_job_cursors.py). Through the dispatch chain against the
chat-completions stand-in of tests/tools/plane/test_gateway.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.tools.plane.test_gateway import VAULT, Model, serving, settings


async def test_a_summary_not_kept_stays_beside_the_next_runs_and_each_can_be_kept(
    make_vault: Callable[..., Path],
) -> None:
    model = Model()
    async with serving(model) as url, started(make_vault(VAULT), **settings(url)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True)
        [first] = (await vg.ok("list_findings", kind="summary"))["items"]
        assert "[[Projects/Alpha]]" in first["detail"]["text"], first
        await asyncio.sleep(1.1)  # mtimes after the first run's cursor
        await vg.ok("write_note", path="Projects/Gamma.md", content="# Gamma\n\nGamma starts in June.\n")
        await vg.settled()
        await vg.ok("run_consolidation", wait=True)
        sent = len(model.requests)
        await asyncio.sleep(1.1)
        await vg.ok("run_consolidation", wait=True)  # nothing new since
        assert len(model.requests) == sent  # nothing sent twice
        summaries = (await vg.ok("list_findings", kind="summary"))["items"]
        assert first["id"] in [s["id"] for s in summaries], summaries
        [kept] = [s for s in summaries if s["id"] == first["id"]]
        assert kept["detail"]["text"] == first["detail"]["text"] and kept["plan"] == first["plan"], kept
        [later] = [s for s in summaries if s["id"] != first["id"]]
        assert "[[Projects/Gamma]]" in later["detail"]["text"], later
        paths = {s["plan"]["steps"][0]["args"]["path"] for s in summaries}
        assert len(paths) == 2, paths  # each can be kept
        for s in summaries:
            await vg.ok("apply_finding", finding_id=s["id"])
        assert sorted(p.name for p in (vg.root / "Digests").iterdir()) == sorted(p.rsplit("/", 1)[1] for p in paths)
