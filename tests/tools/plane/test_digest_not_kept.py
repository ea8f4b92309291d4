"""A digest no one kept yet is not lost by a later run. A run's digest takes the day's key while
`Digests/<day> digest.md` is not there, and covered the changes since the last run only: the next
full run (the schedule's, every few hours) replaced an open digest with its own narrower one (the
morning's notes gone from it), and a run with nothing new marked it `gone`. Found driving the
plane with several agents (B2 s77). An open digest is now covered again by the next run's; once
kept (applied), the next one starts at the last run as before."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, started

VAULT = {"Home.md": "# Home\n[[Morning]]\n", "Morning.md": "# Morning\n\nThe morning plan. [[Home]]\n"}


async def _digests(vg: Harness, status: str = "open") -> list[dict[str, object]]:
    return (await vg.ok("list_findings", kind="digest", status=status))["items"]


async def test_a_digest_not_kept_is_covered_by_the_next_runs(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True)
        [first] = await _digests(vg)
        await asyncio.sleep(1.1)  # mtimes after the first run's cursor
        await vg.ok("write_note", path="Afternoon.md", content="# Afternoon\n\nA decision about the budget. [[Home]]\n")
        await vg.settled()
        await vg.ok("run_consolidation", wait=True)
        [later] = await _digests(vg)
        assert later["id"] == first["id"], later
        text = later["detail"]["text"]  # type: ignore[index]
        assert "[[Morning|Morning]]" in text and "[[Afternoon|Afternoon]]" in text, text
        await asyncio.sleep(1.1)
        await vg.ok("run_consolidation", wait=True)  # nothing new since
        [still] = await _digests(vg)
        assert still["id"] == first["id"] and "[[Morning|Morning]]" in still["detail"]["text"], still  # type: ignore[index]
        assert await _digests(vg, "gone") == []


async def test_once_kept_the_next_digest_starts_at_the_last_run(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True)
        [first] = await _digests(vg)
        assert (await vg.ok("apply_finding", finding_id=first["id"]))["run"]["status"] == "done"
        await asyncio.sleep(1.1)
        await vg.ok("write_note", path="Afternoon.md", content="# Afternoon\n\nA decision about the budget. [[Home]]\n")
        await vg.settled()
        await vg.ok("run_consolidation", wait=True)
        [later] = await _digests(vg)
        text = later["detail"]["text"]  # type: ignore[index]
        assert "[[Afternoon|Afternoon]]" in text and "[[Morning|Morning]]" not in text, text
