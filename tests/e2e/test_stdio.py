"""`vaultgate stdio PATH` as a real subprocess, driven by the SDK's stdio client in both eras."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

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
