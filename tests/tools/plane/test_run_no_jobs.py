"""run_consolidation with `jobs: []` (an empty list, as some clients send an optional list left
empty) is a validation_error naming the jobs, through the dispatch chain; before, it ran no job,
answered `status: done` with `jobs: []`, and became the vault's last run (plane_status's
`last_run`, `last_run_id`), which read as a consolidation that found nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.tools.plane.test_plane import PLANTED


async def test_an_empty_list_of_jobs_is_refused_and_records_no_run(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(PLANTED)) as vg:
        await vg.indexed()
        err = await vg.err("run_consolidation", "validation_error", jobs=[], wait=True)
        assert err["details"]["field"] == "jobs" and "duplicates" in err["details"]["jobs"], err
        status = await vg.ok("plane_status")
        assert status["last_run"] is None and status["last_run_id"] is None, status
