"""Tool visibility and the facade modes, through the dispatch chain and over HTTP."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import e2e, started

VAULT = {"A.md": "# A\n\nalpha\n", "B.md": "# B\n"}


async def test_triad_finds_describes_and_calls_through_the_chain(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), tool_facade={"mode": "triad"}) as vg:
        await vg.indexed()
        advertised = [s.name for s in vg.app.dispatcher.listed()]
        assert advertised == ["find_capability", "describe_capability", "call_capability"]
        found = await vg.ok("find_capability", query="rename a tag everywhere")
        assert found["items"][0]["name"] == "rename_tag"
        moved = await vg.ok("find_capability", query="move note and fix links")
        assert "move_note" in [i["name"] for i in moved["items"][:3]]
        described = await vg.ok("describe_capability", name="search_text")
        assert "query" in described["input_schema"]["properties"] and described["mutating"] is False
        out = await vg.ok("call_capability", name="search_text", arguments={"query": "alpha"})
        assert out["tool"] == "search_text" and [i["path"] for i in out["result"]["items"]] == ["A.md"]
        # the inner tool's checks and errors are the facade call's
        error = await vg.err(
            "call_capability", "elicit_required", name="delete_note", arguments={"path": "A", "permanent": True}
        )
        token = await vg.token_for("delete_note", path="A", permanent=True)
        assert error["details"]["tool"] == "delete_note"
        await vg.ok(
            "call_capability", name="delete_note", arguments={"path": "A", "permanent": True}, elicit_token=token
        )
        assert not (vg.root / "A.md").exists()
        await vg.err("call_capability", "validation_error", name="read_note", arguments={"nope": 1})
        await vg.err("call_capability", "not_found", name="no_such_tool")
        await vg.err("describe_capability", "not_found", name="no_such_tool")
        # every tool stays callable by its own name
        assert (await vg.ok("read_note", path="B"))["title"] == "B"


async def test_domain_mode_has_one_meta_tool_per_domain(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), tool_facade={"mode": "domain"}) as vg:
        advertised = {s.name for s in vg.app.dispatcher.listed()}
        assert {"notes", "search", "graph", "properties", "admin"} <= advertised
        assert "read_note" not in advertised and "find_capability" not in advertised
        out = await vg.ok("notes", operation="read_note", arguments={"path": "B"})
        assert out["result"]["title"] == "B"
        await vg.err("notes", "validation_error", operation="search_text", arguments={"query": "x"})
        await vg.indexed()
        checks = [
            ("search", "search_text", {"query": "alpha"}),
            ("graph", "find_orphans", {}),
            ("moves", "move_note", {"path": "B", "new_path": "Sub/B", "dry_run": True}),
            ("properties", "get_properties", {"path": "B"}),
            ("index", "index_status", {}),
            ("admin", "list_vaults", {}),
            ("sessions", "end_session", {}),
        ]
        for meta, operation, arguments in checks:
            result = await vg.call(meta, operation=operation, arguments=arguments)
            assert result.structured is not None
            if result.is_error:  # e.g. end_session without a session: the inner tool's own error
                assert result.structured["error"]["code"] != "validation_error", (meta, result.structured)
            else:
                assert result.structured["tool"] == operation


async def test_visibility_hidden_disabled_allowed_and_read_only(make_vault: Callable[..., Path]) -> None:
    cfg = {"hidden": ["list_folders"], "disabled": ["delete_note", "graph"]}
    async with started(make_vault(VAULT), tool_visibility=cfg) as vg:
        advertised = {s.name for s in vg.app.dispatcher.listed()}
        assert "list_folders" not in advertised and "delete_note" not in advertised
        assert "get_backlinks" not in advertised  # disabled by domain
        assert (await vg.ok("list_folders"))["items"] == []  # hidden: still callable
        before = vg.snapshot()
        missing = await vg.err("delete_note", "not_found", path="A")
        unknown = await vg.err("no_such_tool", "not_found")
        assert missing["message"].replace("delete_note", "X") == unknown["message"].replace("no_such_tool", "X")
        assert vg.snapshot() == before
        found = await vg.ok("find_capability", query="delete a note")
        assert "delete_note" not in [i["name"] for i in found["items"]]
        await vg.err("call_capability", "not_found", name="delete_note", arguments={"path": "A"})
    async with started(make_vault(VAULT), tool_visibility={"allowed": ["search", "read_note"]}) as vg:
        assert {s.name for s in vg.app.dispatcher.listed()} >= {"search_text", "read_note"}
        await vg.err("write_note", "not_found", path="A", content="x", mode="overwrite")
    async with started(make_vault(VAULT), tool_visibility={"require_read_only": True}) as vg:
        assert not [s.name for s in vg.app.dispatcher.listed() if s.mutating]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_tool_facade_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT), tool_facade={"mode": "triad"}) as (url, _), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        names = [t.name for t in (await c.list_tools()).tools]
        assert names == ["find_capability", "describe_capability", "call_capability"]
        out = await c.call_tool("find_capability", {"query": "full text search"})
        assert out.structured_content is not None and out.structured_content["items"]
        direct = await c.call_tool("read_note", {"path": "A"})
        assert not direct.is_error


async def test_tool_facade_flag_on_stdio(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "service", "stdio", str(root), "--tool-facade", "domain"]
    )
    async with Client(params, mode="legacy") as c:
        names = {t.name for t in (await c.list_tools()).tools}
        assert "notes" in names and "read_note" not in names
