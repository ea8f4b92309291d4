"""A real uvicorn server on 127.0.0.1, driven by the SDK's Streamable HTTP client in both eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from service.dispatch import entry
from service.indexer.runner import indexer_of
from tests.conftest import Harness, e2e


async def test_tools_list_and_read_note_over_http(e2e_server: tuple[str, Harness], mode: str) -> None:
    url, _ = e2e_server
    async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
        tools = await client.list_tools()
        names = {t.name for t in tools.tools}
        # the default (lean) mode: the everyday tools and the capability triad
        assert {"read_note", "search_text", "find_capability", "call_capability"} <= names
        assert "delete_note" not in names
        result = await client.call_tool("read_note", {"path": "Welcome"})
        assert not result.is_error
        assert result.structured_content is not None
        assert result.structured_content["path"] == "Welcome.md"
        assert result.structured_content["obsidian_url"].startswith("obsidian://open?vault=")


async def test_tool_errors_are_structured_over_http(e2e_server: tuple[str, Harness], mode: str) -> None:
    url, _ = e2e_server
    async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
        result = await client.call_tool("read_note", {"path": "../outside.md"})
        assert result.is_error
        assert result.structured_content is not None
        assert result.structured_content["error"]["code"] == "path_invalid"
        unknown = await client.call_tool("no_such_tool", {})
        assert unknown.is_error and unknown.structured_content is not None
        assert unknown.structured_content["error"]["code"] == "not_found"


async def test_healthz_and_readyz_answer(e2e_server: tuple[str, Harness]) -> None:
    url, harness = e2e_server
    base = url.rsplit("/mcp", 1)[0]
    await harness.indexed()  # bounded wait for the first reconcile: from then on /readyz must say ready
    async with httpx2.AsyncClient() as http:
        health = await http.get(f"{base}/healthz")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        ready = await http.get(f"{base}/readyz")
    assert ready.status_code == 200
    body = ready.json()
    assert body["ready"] is True
    assert set(body["vaults"]) == {"main"}
    main = body["vaults"]["main"]
    assert main["ready"] is True and main["index"]["state"] == "ready"
    files = len([p for p in harness.root.rglob("*.md") if ".obsidian" not in p.parts])
    assert main["index"]["progress"] == {"done": files, "total": files}  # auth none: the full report
    storage = body["storage"]
    assert storage["fts5"] is True
    # sqlite-vec is a dependency: it loads here, and /readyz says so.
    assert harness.app.db.backends.vec is True and storage["sqlite_vec"] is True
    assert storage["sqlite_vec_version"] and storage["sqlite_vec_error"] is None


async def test_readyz_is_503_until_every_vault_is_ready(e2e_server: tuple[str, Harness]) -> None:
    url, harness = e2e_server
    base = url.rsplit("/mcp", 1)[0]
    await harness.indexed()
    indexer = indexer_of(harness.app.vaults["main"])
    assert indexer is not None
    indexer.state = "reconciling"  # as during a first reconcile
    try:
        async with httpx2.AsyncClient() as http:
            response = await http.get(f"{base}/readyz")
        assert response.status_code == 503
        assert response.json()["ready"] is False and response.json()["vaults"]["main"]["ready"] is False
    finally:
        indexer.state = "ready"


async def test_a_websocket_upgrade_is_answered_as_plain_http(e2e_server: tuple[str, Harness]) -> None:
    # No websocket stack is loaded (MCP does not use one): the request is served as ordinary HTTP.
    url, _ = e2e_server
    base = url.rsplit("/mcp", 1)[0]
    upgrade = {
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
    }
    async with httpx2.AsyncClient() as http:
        response = await http.get(f"{base}/healthz", headers=upgrade)
    assert response.status_code == 200 and response.json()["status"] == "ok"


async def test_wrong_host_header_is_refused(e2e_server: tuple[str, Harness]) -> None:
    url, _ = e2e_server
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            url,
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"Host": "evil.example", "Accept": "application/json, text/event-stream"},
        )
        assert response.status_code == 421


async def test_tools_list_is_paginated_and_pages_cover_every_tool_once(
    make_vault: Callable[..., Path], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(entry, "TOOLS_PAGE_SIZE", 5)
    names: list[str] = []
    pages = 0
    async with (
        e2e(make_vault(), tool_facade={"mode": "flat"}) as (url, harness),
        Client(url, mode=mode) as client,  # type: ignore[arg-type]
    ):
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor, cache_mode="bypass")
            pages += 1
            assert len(page.tools) <= 5
            names.extend(t.name for t in page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        assert sorted(names) == sorted(spec.name for spec in harness.app.dispatcher.listed())
        assert "read_note" in names and "find_capability" not in names  # flat facade: every tool, no meta-tools
        assert len(names) == len(set(names))
        assert pages == -(-len(names) // 5)
        with pytest.raises(MCPError):
            await client.list_tools(cursor="not-a-number", cache_mode="bypass")
