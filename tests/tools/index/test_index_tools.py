"""index_status and reindex through the dispatch chain; job bookkeeping in the jobs table."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.indexer.jobs import IndexJobs
from service.indexer.runner import VaultIndexer, indexer_of
from service.tools.index import status as index_status_module
from tests.conftest import Harness, started
from tests.search_vault import SEARCH_VAULT
from tests.sec_vault import caller


async def test_index_status_reports_counts_and_health(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEARCH_VAULT)) as vg:
        await vg.indexed()
        indexer = indexer_of(vg.app.vaults["main"])
        assert indexer is not None
        status = await vg.ok("index_status")
        assert status["notes"] == 7 and status["backlog"] == 0 and status["ready"] is True
        assert status["health"] == "healthy" and status["active_job"] is None
        assert status["tags"] >= 5 and status["headings"] >= 7
        assert status["links"]["total"] == status["links"]["resolved"] + status["links"]["unresolved"]
        assert status["last_sync"] is not None and status["watching"] is True
        await vg.ok("create_note", path="New", content="# New\n\n- [ ] a task #t\n")
        after = await vg.ok("index_status")
        assert after["notes"] == 8 and after["tasks"] == status["tasks"] + 1 and after["open_tasks"] >= 1
        assert after["generation"] > status["generation"]


async def test_reindex_sync_and_full_record_jobs_and_report_progress(make_vault: Callable[..., Path]) -> None:
    root = make_vault(SEARCH_VAULT)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        (root / "Journal" / "2026-01-06.md").write_text("# Tuesday\n\nnow about kayaks\n", encoding="utf-8")
        seen: list[tuple[float, float | None]] = []

        async def progress(done: float, total: float | None, message: str | None) -> None:
            seen.append((done, total))

        result = await vg.app.dispatcher.call("reindex", {"mode": "sync"}, principal=vg.principal, progress=progress)
        out = result.structured
        assert out is not None and not result.is_error, out
        job = out["job"]
        assert job["status"] == "done" and job["kind"] == "sync" and out["already_running"] is False
        assert job["result"]["indexed"] == 1 and job["result"]["scanned"] == 7
        assert seen and seen[-1] == (1, 1)
        assert [i["path"] for i in (await vg.ok("search_text", query="kayaks"))["items"]] == ["Journal/2026-01-06.md"]
        full = await vg.ok("reindex", mode="full")
        assert full["job"]["result"]["indexed"] == 7
        status = await vg.ok("index_status")
        assert status["last_job"]["id"] == full["job"]["id"] and status["last_job"]["status"] == "done"
        rows = await vg.app.services.db.fetchall("SELECT kind, status FROM jobs ORDER BY created_at")
        assert [tuple(r) for r in rows] == [("sync", "done"), ("full", "done")]


async def test_a_second_reindex_joins_the_running_one_shown_as_active_job(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEARCH_VAULT)) as vg:
        await vg.indexed()
        blocked, release = asyncio.Event(), asyncio.Event()
        jobs = vg.app.services.index_jobs
        assert isinstance(jobs, IndexJobs)
        jobs.listener_timeout_s = 60.0

        async def hold(done: float, total: float | None, message: str | None) -> None:
            # The job awaits its listeners, so it stays "running" until released.
            blocked.set()
            await asyncio.wait_for(release.wait(), 60)

        first = asyncio.create_task(
            vg.app.dispatcher.call("reindex", {"mode": "full"}, principal=vg.principal, progress=hold)
        )
        await asyncio.wait_for(blocked.wait(), 60)
        status = await vg.ok("index_status")
        assert status["active_job"]["status"] == "running" and status["active_job"]["kind"] == "full"
        assert status["health"] == "degraded"
        second = await vg.ok("reindex", mode="sync", wait=False)
        assert second["already_running"] is True and second["job"]["id"] == status["active_job"]["id"]
        assert second["job"]["kind"] == "full"
        release.set()
        result = await asyncio.wait_for(first, 60)
        assert result.structured is not None and result.structured["already_running"] is False
        assert result.structured["job"]["id"] == second["job"]["id"]
        after = await vg.ok("index_status")
        assert after["active_job"] is None and after["last_job"]["status"] == "done"
        assert after["health"] == "healthy"
        rows = await vg.app.services.db.fetchall("SELECT status FROM jobs")
        assert [r[0] for r in rows] == ["done"]


async def test_reindex_without_waiting_returns_the_job_at_once(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEARCH_VAULT)) as vg:
        await vg.indexed()
        out = await vg.ok("reindex", mode="sync", wait=False)
        assert out["job"]["status"] in ("queued", "running") and out["already_running"] is False
        jobs = vg.app.services.index_jobs
        assert isinstance(jobs, IndexJobs)
        task = jobs._tasks.get(out["job"]["id"])
        if task is not None:
            await asyncio.wait_for(task, 60)
        last = (await vg.ok("index_status"))["last_job"]
        assert last["id"] == out["job"]["id"] and last["status"] == "done"


async def test_interrupted_jobs_are_marked_failed_on_start(make_vault: Callable[..., Path]) -> None:
    root = make_vault(SEARCH_VAULT)
    async with started(root) as vg:
        await vg.app.services.db.run_write(
            lambda c: c.execute(
                "INSERT INTO jobs(id, vault_id, kind, status, created_at) VALUES ('x1', 'main', 'full', 'running', 1)"
            )
        )
    async with started(root) as vg:
        status = await vg.ok("index_status")
        assert status["last_job"]["id"] == "x1" and status["last_job"]["status"] == "failed"
        assert "interrupted" in status["last_job"]["error"]


async def test_index_tool_failure_paths(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEARCH_VAULT)) as vg:
        before = vg.snapshot()
        await vg.err("reindex", "validation_error", mode="everything")
        await vg.err("index_status", "vault_not_found", vault="nope")
        await vg.err("index_status", "validation_error", extra=1)
        vg.principal = caller("read:vault write:vault")
        error = await vg.err("reindex", "forbidden", mode="sync")
        assert error["details"]["required"] == ["admin"]
        assert (await vg.ok("index_status"))["vault"] == "main"
        assert vg.snapshot() == before


async def _dump(vg: Harness) -> list[list[tuple[object, ...]]]:
    db = vg.app.services.db
    queries = (
        "SELECT path, title, tags, etag FROM notes ORDER BY path",
        "SELECT n.path, t.tag, t.source FROM note_tags t JOIN notes n ON n.id = t.note_id ORDER BY 1, 2, 3",
        "SELECT n.path, l.target_raw, l.target_path FROM links l JOIN notes n ON n.id = l.src_id ORDER BY 1, 2, 3",
        "SELECT n.path, h.level, h.text FROM headings h JOIN notes n ON n.id = h.note_id ORDER BY 1, 2, 3",
        "SELECT n.path, t.text, t.status FROM tasks t JOIN notes n ON n.id = t.note_id ORDER BY 1, 2, 3",
        "SELECT title, body FROM note_text ORDER BY title, body",
    )
    return [[tuple(r) for r in await db.fetchall(q)] for q in queries]


async def test_full_reindex_rebuilds_rows_a_sync_trusts(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEARCH_VAULT), index={"watch": False}) as vg:
        await vg.indexed()
        clean = await _dump(vg)

        def tamper(conn: Any) -> None:
            # Damage a sync cannot see: the files' mtime/size/hash are unchanged.
            conn.execute("UPDATE notes SET title = 'bogus' WHERE path = 'Journal/2026-01-06.md'")
            conn.execute("DELETE FROM note_tags WHERE tag_lower = 'project'")
            conn.execute("UPDATE links SET target_path = NULL")
            conn.execute("DELETE FROM headings")

        await vg.app.services.db.run_write(tamper)
        damaged = await _dump(vg)
        assert damaged != clean
        await vg.ok("reindex", mode="sync")
        assert await _dump(vg) == damaged
        out = await vg.ok("reindex", mode="full")
        assert out["job"]["result"]["indexed"] == 7
        assert await _dump(vg) == clean


async def test_a_stalled_progress_listener_does_not_hold_the_job(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEARCH_VAULT)) as vg:
        await vg.indexed()
        jobs = vg.app.services.index_jobs
        assert isinstance(jobs, IndexJobs)
        jobs.listener_timeout_s = 0.01
        never = asyncio.Event()

        async def stalled(done: float, total: float | None, message: str | None) -> None:
            await never.wait()

        result = await asyncio.wait_for(
            vg.app.dispatcher.call("reindex", {"mode": "full"}, principal=vg.principal, progress=stalled), 30
        )
        assert result.structured is not None and result.structured["job"]["status"] == "done"


async def test_a_failed_index_reports_unavailable(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(self: VaultIndexer, **kwargs: Any) -> dict[str, int]:
        raise OSError("disk on fire")

    monkeypatch.setattr(VaultIndexer, "reconcile", broken)
    async with started(make_vault(SEARCH_VAULT)) as vg:
        await vg.indexed()
        status = await vg.ok("index_status")
        assert status["health"] == "unavailable" and status["ready"] is False and status["state"] == "failed"
        assert "disk on fire" in status["error"]


async def test_reindex_by_default_waits_its_bound_then_answers_with_the_running_job(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call that does not say `wait` never holds the line for minutes (it did over stdio): it
    waits `WAIT_S` with progress, then answers with the job, which goes on to its end."""
    monkeypatch.setattr(index_status_module, "WAIT_S", 0.3)
    async with started(make_vault(SEARCH_VAULT)) as vg:
        await vg.indexed()
        release = asyncio.Event()
        jobs = vg.app.services.index_jobs
        assert isinstance(jobs, IndexJobs)
        jobs.listener_timeout_s = 60.0
        seen: list[float] = []

        async def hold(done: float, total: float | None, message: str | None) -> None:
            seen.append(done)
            await asyncio.wait_for(release.wait(), 60)  # the job awaits its listeners: it runs on

        result = await asyncio.wait_for(
            vg.app.dispatcher.call("reindex", {"mode": "full"}, principal=vg.principal, progress=hold), 30
        )
        assert result.structured is not None and not result.is_error
        job = result.structured["job"]
        assert job["status"] == "running" and seen  # answered while it ran, after progress
        assert (await vg.ok("index_status"))["active_job"]["id"] == job["id"]
        release.set()
        task = jobs._tasks.get(job["id"])
        if task is not None:
            await asyncio.wait_for(task, 60)
        assert (await vg.ok("index_status"))["last_job"]["status"] == "done"


async def test_a_job_ending_is_not_seen_ended_before_its_row_says_so(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job's task leaves the jobs' books before its last row is written (a write of the
    writer's): a `wait` in that window (tasks/result of its MCP task, the end notification)
    returned at once, and `get` read the row the job began with ("running", no end), so the
    task's result reported a running job."""
    async with started(make_vault(SEARCH_VAULT), index={"watch": False}) as vg:
        await vg.indexed()
        jobs = vg.app.services.index_jobs
        assert isinstance(jobs, IndexJobs)
        indexer = indexer_of(vg.app.vaults["main"])
        assert indexer is not None
        real = jobs._save
        saving, release = asyncio.Event(), asyncio.Event()

        async def held_last_save(job: Any) -> None:
            if job.status in ("done", "failed"):  # the row the job ends with: held
                saving.set()
                await release.wait()
            await real(job)

        monkeypatch.setattr(jobs, "_save", held_last_save)
        job, _already, task = await jobs.launch(indexer, "sync")
        await asyncio.wait_for(saving.wait(), 60)
        seen = await jobs.get(job.id)
        assert seen is not None and seen.status == "done" and seen.finished_at is not None
        status = await vg.ok("index_status")
        assert status["active_job"] is None and status["last_job"]["status"] == "done"
        waiter = asyncio.create_task(jobs.wait(job.id))
        for _ in range(5):  # the old `wait` found no task and ended in its first step
            await asyncio.sleep(0)
        assert not waiter.done()
        release.set()
        await asyncio.wait_for(waiter, 60)
        row = await vg.app.services.db.fetchone("SELECT status, finished_at FROM jobs WHERE id = ?", (job.id,))
        assert row is not None and row[0] == "done" and row[1] is not None
        await asyncio.wait_for(task, 60)
