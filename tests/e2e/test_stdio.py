"""`vaultgate stdio PATH` as a real subprocess, driven by the SDK's stdio client in both eras."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters


async def test_stdio_serves_tools_and_resources(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault()
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)])
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"read_note", "write_note", "list_notes"} <= names
        read = await client.call_tool("read_note", {"path": "Welcome"})
        assert not read.is_error and read.structured_content is not None
        assert read.structured_content["title"] == "Welcome"
        made = await client.call_tool("create_note", {"path": "From stdio", "content": "hi\n"})
        assert not made.is_error
        # A write through vaultgate is indexed before it returns, so it is searchable at once.
        noted = await client.call_tool("create_note", {"path": "Found", "content": "a quokka smiles #wild\n"})
        assert not noted.is_error
        found = await client.call_tool("search_text", {"query": "quokka"})
        assert not found.is_error and found.structured_content is not None
        assert [i["path"] for i in found.structured_content["items"]] == ["Found.md"]
        tagged = await client.call_tool("search_tags", {"tags": ["wild"]})
        assert tagged.structured_content is not None
        assert [i["path"] for i in tagged.structured_content["items"]] == ["Found.md"]
        bad = await client.call_tool("read_note", {"path": "/etc/passwd"})
        assert bad.is_error and bad.structured_content is not None
        assert bad.structured_content["error"]["code"] == "path_invalid"
    assert (root / "From stdio.md").read_text() == "hi\n"


async def test_a_bulk_load_in_worker_processes_leaves_the_stdio_channel_clean(tmp_path: Path) -> None:
    """1,200 notes: the start-up index parses them in a worker process, which inherits the
    server's stdout (the protocol channel) and must never write to it."""
    root = tmp_path / "big"
    root.mkdir()
    for i in range(1200):
        (root / f"n{i:04}.md").write_text(f"# Note {i}\n\nsee [[n{(i + 1) % 1200:04}]] #bulk\n", encoding="utf-8")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "service", "stdio", str(root)],
        env={**os.environ, "VAULTGATE_INDEX__PARSE_WORKERS": "1", "VAULTGATE_INDEX__WATCH": "false"},
    )
    async with Client(params, mode="legacy") as client:
        for _ in range(600):  # bounded: the index of 1,200 small notes takes well under a minute
            status = await client.call_tool("index_status", {})
            assert status.structured_content is not None
            if status.structured_content["ready"]:
                break
            await anyio.sleep(0.1)
        assert status.structured_content["notes"] == 1200
        back = await client.call_tool("get_backlinks", {"path": "n0000"})
        assert back.structured_content is not None
        assert [i["path"] for i in back.structured_content["items"]] == ["n1199.md"]
        tagged = await client.call_tool("search_tags", {"tags": ["bulk"], "limit": 1})
        assert tagged.structured_content is not None and tagged.structured_content["total"] == 1200
