"""Domain meta-tools and tool_visibility: a disabled tool is named nowhere in a meta-tool and
asking for it answers exactly as an unknown operation does (docs/policies.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

VAULT = {"A.md": "# A\n"}


def _advertised(vg: Harness) -> dict[str, Any]:
    return {s.name: s.to_mcp() for s in vg.app.dispatcher.listed()}


async def test_a_disabled_tool_is_not_an_operation_of_its_meta_tool(make_vault: Callable[..., Path]) -> None:
    cfg = {"disabled": ["delete_note", "graph"], "hidden": ["copy_note"]}
    async with started(make_vault(VAULT), tool_visibility=cfg, tool_facade={"mode": "domain"}) as vg:
        tools = _advertised(vg)
        notes = tools["notes"]
        shown = json.dumps(notes.input_schema) + (notes.description or "")
        assert "delete_note" not in shown
        assert "copy_note" in shown and "read_note" in shown  # hidden: still offered by the facade
        assert "graph" not in tools  # a whole domain disabled: no meta-tool
        before = vg.snapshot()
        disabled = await vg.err("notes", "validation_error", operation="delete_note", arguments={"path": "A"})
        unknown = await vg.err("notes", "validation_error", operation="no_such_op", arguments={"path": "A"})
        assert json.dumps(disabled).replace("delete_note", "X") == json.dumps(unknown).replace("no_such_op", "X")
        assert "delete_note" not in json.dumps(unknown)
        gone = await vg.err("graph", "not_found", operation="get_backlinks", arguments={"path": "A"})
        other = await vg.err("no_such_domain", "not_found", operation="get_backlinks", arguments={"path": "A"})
        assert gone["message"].replace("graph", "X") == other["message"].replace("no_such_domain", "X")
        assert vg.snapshot() == before
        assert (await vg.ok("notes", operation="read_note", arguments={"path": "A"}))["tool"] == "read_note"


async def test_without_visibility_rules_every_operation_is_offered(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), tool_facade={"mode": "domain"}) as vg:
        notes = _advertised(vg)["notes"]
        assert "delete_note" in json.dumps(notes.input_schema)
