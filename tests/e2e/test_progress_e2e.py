"""Progress and cancellation of long changes end to end: real uvicorn + the SDK's Streamable HTTP
client in both protocol eras, a raw HTTP client that closes its stream, and the stdio server as
a subprocess driven by the SDK's stdio client.

The server holds the first long change at its first item (`tests.long_changes.Hold`), right after
the first progress notification, so each cancellation is seen at a known point: no timing.
- 2025 era (`mode="legacy"`): cancelling the call sends `notifications/cancelled`;
- 2026-07-28 (`mode="auto"`): cancelling the call closes its HTTP response stream;
both stop the change before anything is written. A 2025-era client that only closes its SSE
stream has not cancelled (the protocol says so): the change goes on and completes, whole.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client, StdioServerParameters

from service.app import VaultgateApp
from service.serve import serving
from tests.conftest import Harness, settings_for, write_files
from tests.long_changes import HUB_NOTES, Hold, assert_progress, hub_files, index_state, vault_bytes

RENAME = {"path": "Hub", "new_path": "Centre"}
WORKTREE = str(Path(__file__).resolve().parents[2])  # the stdio server imports tests.long_changes
Seen = list[tuple[float, float | None, str | None]]


@contextlib.asynccontextmanager
async def hub_server(tmp_path: Path, hold: Hold) -> AsyncIterator[tuple[str, Harness]]:
    root = tmp_path / "hub"
    root.mkdir()
    write_files(root, hub_files())
    settings = settings_for(root)
    async with serving(settings, VaultgateApp(settings, step_hook=hold)) as (url, app):
        harness = Harness(app, root)
        await harness.indexed()
        yield url, harness


def _renamed(root: Path) -> bool:
    texts = [(root / f"Notes/n{i:03}.md").read_text() for i in range(HUB_NOTES)]
    return not (root / "Hub.md").exists() and all("[[Centre]] and [[Centre#Part|part]]" in t for t in texts)


async def _cancel_at_first_progress(client: Client, tool: str, args: dict[str, Any]) -> Seen:
    seen: Seen = []
    with anyio.CancelScope() as scope:

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            seen.append((done, total, message))
            scope.cancel()  # legacy: notifications/cancelled; 2026-07-28: the stream is closed

        await client.call_tool(tool, args, progress_callback=on_progress)
    assert scope.cancelled_caught
    return seen


async def _with_progress(client: Client, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any], Seen]:
    seen: Seen = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    result = await client.call_tool(tool, args, progress_callback=on_progress)
    assert not result.is_error and result.structured_content is not None, result
    return result.structured_content, seen


async def test_a_cancelled_rename_changes_nothing_over_http(tmp_path: Path, mode: str) -> None:
    hold = Hold("prepare", 1, label="rename_note")
    async with hub_server(tmp_path, hold) as (url, vg):
        files, index = vault_bytes(vg.root), await index_state(vg.app.db)
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            seen = await _cancel_at_first_progress(client, "rename_note", RENAME)
            await hold.cancelled.wait()  # the server saw the cancellation where it held the change
            assert seen[0][1] == HUB_NOTES + 1 and seen[0][0] == 1
            assert vault_bytes(vg.root) == files
            assert await index_state(vg.app.db) == index
            # The same call, not cancelled: progress grows to its total and the change is whole.
            out, seen = await _with_progress(client, "rename_note", RENAME)
            assert out["notes_rewritten"] == HUB_NOTES
            assert_progress(seen)
            assert _renamed(vg.root)
            await vg.settled()  # the index update follows the acknowledged write
            links = (await index_state(vg.app.db))[1]
            assert {target for path, _, target, _ in links if path.startswith("Notes/")} == {"Centre.md"}
            # reindex reports its progress too, up to its total.
            done, seen = await _with_progress(client, "reindex", {"mode": "full"})
            assert done["job"]["status"] == "done"
            assert_progress(seen)


async def test_closing_a_2025_sse_stream_is_not_a_cancel_the_change_completes(tmp_path: Path) -> None:
    hold = Hold("prepare", 1, label="rename_note")
    async with hub_server(tmp_path, hold) as (url, vg), httpx2.AsyncClient(timeout=60) as http:
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
        opened = await http.post(url, json=init, headers=headers)
        session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "rename_note", "arguments": RENAME, "_meta": {"progressToken": "p1"}},
        }
        async with (
            httpx2.AsyncClient(timeout=60) as caller,  # its own connection, closed with it
            caller.stream("POST", url, json=call, headers=session) as response,
        ):
            async for line in response.aiter_lines():
                if line.startswith("data:") and json.loads(line[5:]).get("method") == "notifications/progress":
                    break  # the first progress notification: close the stream here
        assert hold.reached.is_set()
        hold.release.set()
        # A dry run (of a note the first call leaves alone, so its precheck passes either way)
        # waits for the per-vault move lock the first call holds until it is done.
        async with Client(url, mode="legacy") as client:
            after = await client.call_tool("rename_note", {"path": "Other", "new_path": "Else", "dry_run": True})
            assert not after.is_error and after.structured_content is not None
        assert not hold.cancelled.is_set()
        assert _renamed(vg.root)


async def test_a_cancelled_rename_changes_nothing_over_stdio(tmp_path: Path, mode: str) -> None:
    root = tmp_path / "hub"
    root.mkdir()
    write_files(root, hub_files())
    files = vault_bytes(root)
    env = {**os.environ, "PYTHONPATH": WORKTREE, "VAULTGATE_INDEX__WATCH": "false"}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "tests.e2e.held_stdio", str(root)], env=env, cwd=WORKTREE
    )
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        seen = await _cancel_at_first_progress(client, "rename_note", RENAME)
        assert len(seen) == 1
        # The held call ends only by the cancellation; until then it holds the move lock this
        # dry run waits for.
        dry = await client.call_tool("rename_note", {**RENAME, "dry_run": True})
        assert not dry.is_error and dry.structured_content is not None
        assert dry.structured_content["notes_rewritten"] == HUB_NOTES
        assert vault_bytes(root) == files
        out, seen = await _with_progress(client, "rename_note", RENAME)
        assert out["notes_rewritten"] == HUB_NOTES
        assert_progress(seen)
    assert _renamed(root)
