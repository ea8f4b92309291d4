"""Session 76's start-up recovery over shared state, over real HTTP with the SDK client (both
eras): an HTTP server started while another server process runs a reindex job on the same vault
reports that job `running` in index_status (it used to mark it failed, "interrupted", at its
start while the job went on), and reports it failed once that process is killed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.killed import held
from tests.search_vault import SEARCH_VAULT


async def test_an_http_server_leaves_another_live_servers_reindex_job_running(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str
) -> None:
    root = make_vault(SEARCH_VAULT)
    async with held("tests.reindex_held", root, tmp_path / "held") as proc:
        async with e2e(root) as (url, _h), Client(url, mode=mode) as client:  # type: ignore[arg-type]
            job = (await ok(client, "index_status"))["last_job"]
            assert job["kind"] == "full" and job["status"] == "running" and job["error"] is None
        proc.kill()  # kill -9 mid-job: the next start marks it failed
    async with e2e(root) as (url, _h), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        job = (await ok(client, "index_status"))["last_job"]
        assert job["status"] == "failed" and job["error"].startswith("interrupted")
