"""Graph, move and property tools over real HTTP with the SDK client, in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e


async def _ok(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.structured_content
    assert result.structured_content is not None
    return result.structured_content


async def test_move_note_backlinks_and_set_properties_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault()) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            links = await _ok(client, "get_backlinks", {"path": "Projects/Plan"})
            assert [i["path"] for i in links["items"]] == ["Welcome.md"]
            # A rename inside the same folder needs no confirmation.
            moved = await _ok(client, "move_note", {"path": "Projects/Plan", "new_path": "Projects/Roadmap"})
            assert moved["path"] == "Projects/Roadmap.md"
            assert [i["path"] for i in moved["items"]] == ["Welcome.md"]
            after = await _ok(client, "get_backlinks", {"path": "Projects/Roadmap.md"})
            assert [(i["path"], i["text"]) for i in after["items"]] == [("Welcome.md", "See [[Projects/Roadmap]].")]
            props = await _ok(client, "set_properties", {"path": "Projects/Roadmap", "properties": {"owner": "me"}})
            assert props["properties"] == {"status": "active", "priority": 2, "owner": "me"}
            missing = await client.call_tool("move_note", {"path": "Nope", "new_path": "Else"})
            assert missing.is_error and missing.structured_content is not None
            assert missing.structured_content["error"]["code"] == "note_not_found"
        assert harness.read("Projects/Roadmap.md").startswith("---\nstatus: active\npriority: 2\nowner: me\n---\n")
