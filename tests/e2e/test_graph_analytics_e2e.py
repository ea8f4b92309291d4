"""Graph analytics over real HTTP with the SDK client, in both protocol eras: the central note of
a star, the path between two notes, communities and a link suggestion; an unknown note is a
structured error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e

VAULT = {
    "Hub.md": "# Hub\n\n[[One]] [[Two]] [[Three]]\n",
    "One.md": "Back to [[Hub]]. Two is mentioned here.\n",
    "Two.md": "[[Hub]]\n",
    "Three.md": "[[Hub]]\n",
}


async def _ok(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.structured_content
    assert result.structured_content is not None
    return result.structured_content


async def test_graph_analytics_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            central = await _ok(client, "central_notes", {"measure": "betweenness", "limit": 1})
            assert [i["path"] for i in central["items"]] == ["Hub.md"] and central["next_cursor"]
            path = await _ok(client, "shortest_path", {"source": "one", "target": "Three"})
            assert [n["path"] for n in path["notes"]] == ["One.md", "Hub.md", "Three.md"]
            assert [h["direction"] for h in path["hops"]] == ["outlink", "outlink"]
            groups = await _ok(client, "find_communities", {})
            assert groups["notes"] == 4 and sum(c["size"] for c in groups["items"]) == 4
            hint = await _ok(client, "suggest_links", {"path": "One"})
            assert [(i["line"], i["target"], i["link"]) for i in hint["items"]] == [(1, "Two.md", "[[Two]]")]
            missing = await client.call_tool("shortest_path", {"source": "One", "target": "Nope"})
            assert missing.is_error and missing.structured_content is not None
            assert missing.structured_content["error"]["code"] == "note_not_found"
