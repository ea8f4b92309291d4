"""index_status and reindex over real HTTP with the SDK client, in both eras: progress
notifications, failure paths, the admin scope, and a file saved on disk reaching the index."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from service.indexer import rows
from service.vault.events import FileChange
from tests.conftest import e2e
from tests.keys import SECRET, claims, hs
from tests.search_vault import SEARCH_VAULT


@pytest.mark.covers("index_status", "success")
@pytest.mark.covers("index_status", "failure")
@pytest.mark.covers("reindex", "success")
@pytest.mark.covers("reindex", "failure")
async def test_index_status_and_reindex_with_progress(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(SEARCH_VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            status = await client.call_tool("index_status", {})
            assert not status.is_error and status.structured_content is not None
            for key in ("notes", "backlog", "health", "active_job"):
                assert key in status.structured_content
            assert status.structured_content["notes"] == 7
            updates: list[tuple[float, float | None]] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                updates.append((progress, total))

            done = await client.call_tool("reindex", {"mode": "full"}, progress_callback=on_progress)
            assert not done.is_error and done.structured_content is not None
            assert done.structured_content["job"]["status"] == "done"
            assert updates and updates[-1] == (7, 7)
            bad = await client.call_tool("reindex", {"mode": "nope"})
            assert bad.is_error and bad.structured_content is not None
            assert bad.structured_content["error"]["code"] == "validation_error"
            unknown = await client.call_tool("index_status", {"vault": "elsewhere"})
            assert unknown.structured_content is not None
            assert unknown.structured_content["error"]["code"] == "vault_not_found"


async def test_reindex_needs_the_admin_scope_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    auth = {"mode": "jwt", "jwt_secret": SECRET, "audience": "vaultgate"}
    root = make_vault(SEARCH_VAULT)
    async with e2e(root, auth=auth) as (url, harness):
        await harness.indexed()
        before = harness.snapshot()
        agent = hs(claims(aud="vaultgate", scope="read:vault write:vault"))
        async with _client(url, agent, mode) as client:
            status = await client.call_tool("index_status", {})
            assert not status.is_error and status.structured_content is not None
            assert status.structured_content["ready"] is True
            denied = await client.call_tool("reindex", {"mode": "full"})
            assert denied.is_error and denied.structured_content is not None
            assert denied.structured_content["error"]["code"] == "forbidden"
        admin = hs(claims(aud="vaultgate", scope="read:vault admin"))
        async with _client(url, admin, mode) as client:
            done = await client.call_tool("reindex", {"mode": "sync"})
            assert not done.is_error and done.structured_content is not None
            assert done.structured_content["job"]["status"] == "done"
        assert harness.snapshot() == before
        rows = await harness.app.services.db.fetchall("SELECT kind, status FROM jobs")
        assert [tuple(r) for r in rows] == [("sync", "done")]


async def test_a_note_saved_on_disk_shows_in_index_status_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(SEARCH_VAULT)
    async with e2e(root) as (url, harness):
        await harness.indexed()
        arrived = asyncio.Event()

        async def listener(changes: Sequence[FileChange]) -> None:
            if any(c.path == "Dropped.md" and c.origin == "external" for c in changes):
                arrived.set()

        harness.app.vaults["main"].bus.subscribe(listener)
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            first = await client.call_tool("index_status", {})
            assert first.structured_content is not None
            (root / "Dropped.md").write_text("# Dropped\n\n- [ ] sort the platypus #inbox\n", encoding="utf-8")
            await asyncio.wait_for(arrived.wait(), 60)
            after = await client.call_tool("index_status", {})
            assert after.structured_content is not None
            assert after.structured_content["notes"] == first.structured_content["notes"] + 1
            assert after.structured_content["tasks"] == first.structured_content["tasks"] + 1
            found = await client.call_tool("search_text", {"query": "platypus"})
            assert found.structured_content is not None
            assert [i["path"] for i in found.structured_content["items"]] == ["Dropped.md"]


async def test_the_server_answers_while_the_start_up_reconcile_runs(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first reconcile is held in its parse step (a worker thread waiting on an event), so
    the state is deterministic: tools answer, index_status reports the backlog, /readyz says
    not ready, and search results say they are partial."""
    release = threading.Event()
    parsing = threading.Event()
    original = rows.read_batch

    def held(*args: Any, **kwargs: Any) -> Any:
        parsing.set()
        if not release.wait(30):
            raise TimeoutError("the test never released the reconcile")
        return original(*args, **kwargs)

    monkeypatch.setattr(rows, "read_batch", held)
    async with e2e(make_vault(SEARCH_VAULT)) as (url, harness):
        try:
            await asyncio.wait_for(asyncio.to_thread(parsing.wait, 30), 35)
            async with Client(url) as client:
                status = await client.call_tool("index_status", {})
                assert not status.is_error and status.structured_content is not None
                body = status.structured_content
                assert (body["state"], body["ready"], body["health"]) == ("reconciling", False, "degraded")
                assert body["backlog"] == len(SEARCH_VAULT) and body["notes"] == 0
                found = await client.call_tool("search_text", {"query": "rocket"})
                assert found.structured_content is not None
                assert found.structured_content["items"] == [] and found.structured_content["partial"] is True
                notes = await client.call_tool("search_notes", {"mode": "tags", "query": "project"})
                assert notes.structured_content is not None and notes.structured_content["partial"] is True
                read = await client.call_tool("read_note", {"path": "Welcome"})
                assert not read.is_error
                async with httpx2.AsyncClient() as http:
                    ready = await http.get(url.rsplit("/mcp", 1)[0] + "/readyz")
                assert ready.status_code == 503
                release.set()
                await harness.indexed(30)
                after = await client.call_tool("search_text", {"query": "rocket"})
                assert after.structured_content is not None and after.structured_content["partial"] is False
                assert len(after.structured_content["items"]) == 6
                done = await client.call_tool("index_status", {})
                assert done.structured_content is not None
                assert (done.structured_content["state"], done.structured_content["backlog"]) == ("ready", 0)
        finally:
            release.set()


@contextlib.asynccontextmanager
async def _client(url: str, token: str, mode: str) -> AsyncIterator[Client]:
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as c,  # type: ignore[arg-type]
    ):
        yield c
