"""E2E (both protocol eras, SDK client over real HTTP): run_consolidation with `jobs: []` is a
validation_error naming the jobs, and no run is recorded (plane_status has no last run)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok


async def test_run_consolidation_with_no_jobs_is_refused(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n"})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            refused = await error(c, "run_consolidation", jobs=[], wait=True)
            assert refused["code"] == "validation_error" and "duplicates" in refused["details"]["jobs"], refused
            assert (await ok(c, "plane_status"))["last_run"] is None
