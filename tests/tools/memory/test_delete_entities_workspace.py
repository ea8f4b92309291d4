"""delete_entities forgets the trashed entity notes in Obsidian's workspace, as delete_note does
(`service.graph.workspace_paths.forget_deleted`): `lastOpenFiles` of `.obsidian/workspace.json`
no longer lists them, every other entry and key stays, the result names the file in
`settings_updated`, and a plan's effects list it. Through the dispatch chain and over HTTP with
the SDK client answering the confirmation."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from tests.conftest import e2e, started

WS = ".obsidian/workspace.json"
PEOPLE = [
    {"name": "Acme", "entityType": "company", "observations": ["Makes pottery wheels"]},
    {"name": "Melanie", "entityType": "person", "observations": ["Runs a pottery class"]},
    {"name": "Caroline", "entityType": "person", "observations": ["Likes hiking"]},
]
RECENT = ["Memory/Acme.md", "Welcome.md", "Memory/Melanie.md", "Memory/Caroline.md"]


def _workspace() -> str:
    leaf = {
        "id": "a1",
        "type": "leaf",
        "state": {"type": "markdown", "state": {"file": "Welcome.md"}, "title": "Welcome"},
    }
    tabs = {"id": "t", "type": "tabs", "children": [leaf]}
    data = {"main": {"id": "m", "type": "split", "children": [tabs]}, "active": "a1", "lastOpenFiles": RECENT}
    return json.dumps(data, indent="\t")


def _recent(root: Path) -> list[str]:
    recent: list[str] = json.loads((root / WS).read_text())["lastOpenFiles"]
    return recent


async def test_deleted_entities_leave_obsidians_recent_files(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Welcome.md": "# Welcome\n", WS: _workspace()})) as vg:
        await vg.ok("create_entities", entities=PEOPLE)
        one = await vg.confirmed("delete_entities", entityNames=["Acme"])
        assert one["deleted"] == ["Acme"] and one["settings_updated"] == [WS]
        assert _recent(vg.root) == RECENT[1:]
        two = await vg.confirmed("delete_entities", entityNames=["Melanie", "Caroline"])  # a journaled call
        assert two["deleted"] == ["Melanie", "Caroline"] and two["settings_updated"] == [WS]
        assert _recent(vg.root) == ["Welcome.md"]
        assert json.loads((vg.root / WS).read_text())["active"] == "a1"  # the rest as it was
        none = await vg.ok("delete_entities", entityNames=["Ghost"])  # nothing to confirm
        assert none["deleted"] == [] and none["settings_updated"] == []


async def test_a_plans_effects_list_the_workspace_a_delete_entities_rewrites(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Welcome.md": "# Welcome\n", WS: _workspace()})) as vg:
        await vg.ok("create_entities", entities=PEOPLE)
        plan = {"goal": "g", "steps": [{"id": "d", "tool": "delete_entities", "args": {"entityNames": ["Acme"]}}]}
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        assert effects["files_deleted"] == ["Memory/Acme.md"] and effects["files_modified"] == [WS]
        await vg.confirmed("execute_plan", plan=plan)
        assert _recent(vg.root) == RECENT[1:]


async def test_over_http_deleted_entities_leave_the_recent_files(make_vault: Callable[..., Path]) -> None:
    async def accept(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"confirm": True})

    root = make_vault({"Welcome.md": "# Welcome\n", WS: _workspace()})
    async with e2e(root) as (url, _), Client(url, mode="legacy", elicitation_callback=accept) as client:
        made = await client.call_tool("create_entities", {"entities": PEOPLE})
        assert not made.is_error, made.structured_content
        result = await client.call_tool("delete_entities", {"entityNames": ["Acme", "Melanie"]})
        assert not result.is_error and result.structured_content is not None, result.structured_content
        assert result.structured_content["settings_updated"] == [WS]
    assert _recent(root) == ["Welcome.md", "Memory/Caroline.md"]
