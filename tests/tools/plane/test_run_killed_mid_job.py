"""A server killed (SIGKILL) in the middle of a consolidation run keeps the jobs the run finished and
no half of the one it was in: each job's findings and state are one transaction.

The run is in a real subprocess (tests/plane_killed.py: jobs `first`, `second`, `third`) killed
while `second` runs, or while `second`'s record is held inside its transaction (its finding
written, not committed). A new server on the same data folder shows `first` recorded (its finding,
its report), nothing of `second` or `third`, and the run `unfinished` with `first` done. Before,
nothing of a killed run was recorded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started
from tests.killed import kill_when_held

VAULT = {"Home.md": "# Home\n\nSee [[Other]].\n", "Other.md": "# Other\n"}


@pytest.mark.parametrize("where", ["in-job", "in-record"])
async def test_a_run_killed_mid_job_keeps_the_jobs_it_finished_and_none_half(
    make_vault: Callable[..., Path], tmp_path: Path, where: str
) -> None:
    root = make_vault(VAULT)
    await kill_when_held("tests.plane_killed", root, tmp_path / "held", where)
    async with started(root) as vg:
        rows = await vg.app.state.fetchall("SELECT job, title, status FROM plane_findings ORDER BY job")
        assert [tuple(r) for r in rows] == [("first", "first", "open")]  # none of second's, committed or not
        saved = await vg.app.plane.saved("main")
        assert saved["last_run"] is None  # the run did not end
        assert [(r["job"], r["status"], r["findings"]) for r in saved["summary"]["jobs"]] == [("first", "ran", 1)]
        status = await vg.ok("plane_status")
        left = status["unfinished"]
        assert left["done"] == ["first"] and left["run_id"] == saved["summary"]["unfinished"]["run_id"], left
        assert "second" not in saved["summary"].get("cursors", {})
        report = next(j for j in status["jobs"] if j["job"] == "duplicates")  # the server's own jobs: not run
        assert report["last_status"] is None
