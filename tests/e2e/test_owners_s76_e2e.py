"""Session 76's shared-state fixes over real HTTP with the SDK client (both eras): an HTTP server
started while another server process runs a reindex job on the same vault reports that job
`running` in index_status (it used to mark it failed, "interrupted", at its start while the job
went on), and reports it failed once that process is killed; two servers in one process with
other `sensitive_terms` each flag a note by their own terms (topic verdicts were shared)."""

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


async def test_two_servers_in_one_process_flag_topics_by_their_own_terms(
    make_vault: Callable[..., Path], mode: str
) -> None:
    notes = {"Trip.md": "# Trip\n\nWe went down the river by kayak.\n"}
    async with e2e(make_vault(notes), search={"sensitive_terms": ["salary"]}) as (url_a, a):
        await a.settled()
        async with Client(url_a, mode=mode) as client:  # type: ignore[arg-type]
            [item] = (await ok(client, "search_text", query="kayak"))["items"]
            assert item["sensitive"] is False
        async with e2e(make_vault(notes), search={"sensitive_terms": ["kayak"]}) as (url_b, b):
            await b.settled()
            async with Client(url_b, mode=mode) as client:  # type: ignore[arg-type]
                [item] = (await ok(client, "search_text", query="kayak"))["items"]
                assert item["sensitive"] is True


async def test_a_note_taking_a_deleted_notes_id_and_content_is_flagged_by_its_own_title(
    make_vault: Callable[..., Path], mode: str
) -> None:
    body = "# Plan\n\nThe numbers for next year.\n"
    vault = make_vault({"Home.md": "# Home\n"})
    async with e2e(vault, search={"sensitive_tags": ["salary"]}) as (url, h), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await ok(client, "create_note", path="Budget.md", content=body)
        await h.settled()
        [item] = (await ok(client, "search_text", query="numbers"))["items"]
        assert item["path"] == "Budget.md" and item["sensitive"] is False
        token = await h.token_for("delete_note", path="Budget.md", permanent=True)
        await ok(client, "delete_note", path="Budget.md", permanent=True, elicit_token=token)
        await ok(client, "create_note", path="Salary.md", content=body)
        await h.settled()
        [item] = (await ok(client, "search_text", query="numbers"))["items"]
        assert item["path"] == "Salary.md" and item["sensitive"] is True
