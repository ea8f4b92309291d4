"""Over real HTTP with the SDK client: a note longer than `[limits] max_indexed_note_chars`,
saved by another program, is indexed up to the limit and reported `capped`; a client reads it
whole, a line range of it, and writes it; a write larger than `[http] max_request_body_bytes`
is refused with a structured JSON-RPC error and nothing is written. Small limits through the
settings; every wait bounded, no timings asserted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import e2e

WITHIN = 60.0
LIMIT = 4096
BODY_LIMIT = 64 * 1024
BIG = (
    "# Big\n\nearlyword\n"
    + "".join(f"- [ ] task {i} with plain words\n" for i in range(2000))  # ~60 KB
    + "lateword\n"
)


async def _call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.structured_content
    assert result.structured_content is not None
    return result.structured_content


async def test_a_long_note_is_indexed_up_to_the_limit_and_stays_whole_over_http(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"A.md": "# A\n\nalpha\n"})
    settings = {"limits": {"max_indexed_note_chars": LIMIT}, "http": {"max_request_body_bytes": BODY_LIMIT}}
    async with e2e(root, **settings) as (url, harness), Client(url) as client:
        await harness.indexed()
        (root / "Big.md").write_text(BIG, encoding="utf-8")  # saved by another program
        for _ in range(int(WITHIN / 0.05)):
            if (await _call(client, "search_text", {"query": "earlyword"}))["items"]:
                break
            await asyncio.sleep(0.05)
        assert [i["path"] for i in (await _call(client, "search_text", {"query": "earlyword"}))["items"]] == ["Big.md"]
        assert (await _call(client, "search_text", {"query": "lateword"}))["items"] == []
        warnings = (await _call(client, "index_status", {}))["file_warnings"]
        assert warnings["by_reason"] == {"capped": 1}
        assert warnings["examples"][0]["detail"].startswith(f"text {len(BIG)} chars > {LIMIT}: the first ")

        assert (await _call(client, "read_note", {"path": "Big"}))["content"] == BIG
        last = BIG.count("\n")
        tail = await _call(client, "read_note", {"path": "Big", "start_line": last, "end_line": last})
        assert (tail["content"], tail["total_lines"]) == ("lateword\n", last)
        await _call(client, "append_note", {"path": "Big", "content": "appendedword\n"})
        assert (root / "Big.md").read_text(encoding="utf-8") == BIG + "appendedword\n"

        with pytest.raises(MCPError) as refused:
            await client.call_tool("create_note", {"path": "TooBig", "content": "x" * BODY_LIMIT})
        assert refused.value.error.code == -32600
        assert f"over the limit of {BODY_LIMIT} bytes" in refused.value.error.message
        assert not (root / "TooBig.md").exists()
        assert (await _call(client, "read_note", {"path": "A"}))["content"] == "# A\n\nalpha\n"  # the session goes on
