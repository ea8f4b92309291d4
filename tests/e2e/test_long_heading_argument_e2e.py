"""Over real HTTP with the SDK client: read_note of a note of many headings, given a heading of
thousands of characters, answers validation_error not_found (it normalised that heading once per
heading of the note, on the event loop: 9.5 s for 10,000 of each, every other client waiting).
No time is asserted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e


async def test_a_long_heading_argument_is_not_found_over_http(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Deep.md": "".join("#" * (1 + i % 6) + " H\n" for i in range(3000))})
    async with e2e(root) as (url, harness), Client(url) as client:
        await harness.indexed()
        answer = await client.call_tool("read_note", {"path": "Deep", "heading": "#".join(["H"] * 3000)})
        assert answer.is_error and answer.structured_content is not None
        error = answer.structured_content["error"]
        assert (error["code"], error["details"]["reason"]) == ("validation_error", "not_found")
        other = await client.call_tool("list_vaults", {})
        assert not other.is_error
