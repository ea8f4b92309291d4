"""Over real HTTP with the SDK client: a canvas of 20,000 file nodes (1 MB) in the vault is
indexed in one pass, so its backlinks answer and a write made behind it is read back (its
index update waited behind 28 s of line searching before, and a read-after-write wait ran out
at 30 s with index_unavailable on a loaded machine). No time is asserted."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e

NODES = 20_000


async def test_a_canvas_of_twenty_thousand_file_nodes_is_indexed_and_writes_go_on(
    make_vault: Callable[..., Path],
) -> None:
    nodes = [{"id": f"n{i}", "type": "file", "x": i, "y": 0, "width": 1, "height": 1, "file": f"N{i % 10}.md"}
             for i in range(NODES)]  # fmt: skip
    files = {f"N{i}.md": f"# N{i}\n" for i in range(10)} | {"Wall.canvas": json.dumps({"nodes": nodes, "edges": []})}
    root = make_vault(files)
    async with e2e(root) as (url, harness), Client(url) as client:
        await harness.indexed()
        wrote = await client.call_tool("write_note", {"path": "After.md", "content": "# After\n\n[[N1]]\n"})
        assert not wrote.is_error, wrote.structured_content
        read = await client.call_tool("read_note", {"path": "After"})
        assert not read.is_error and read.structured_content is not None
        back = await client.call_tool("get_backlinks", {"path": "N1", "limit": 5})
        assert back.structured_content is not None
        assert {i["path"] for i in back.structured_content["items"]} <= {"Wall.canvas", "After.md"}
        assert back.structured_content["next_cursor"] is not None  # 2,000 links from the canvas
