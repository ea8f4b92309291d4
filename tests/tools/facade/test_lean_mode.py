"""The default `lean` mode through the dispatch chain: what it advertises, how the visibility
rules narrow it, and that every tool stays reachable."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.policy.visibility import LEAN, TRIAD
from tests.conftest import started

VAULT = {"A.md": "# A\n\nalpha #topic\n", "B.md": "# B\n\nSee [[A]].\n"}


@pytest.mark.covers("find_capability", "success")
@pytest.mark.covers("find_capability", "failure")
@pytest.mark.covers("rename_tag", "success")
async def test_lean_advertises_the_everyday_tools_and_the_triad(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        assert {s.name for s in vg.app.dispatcher.listed()} == {*LEAN, *TRIAD}
        # a tool outside the list: found by what it does, then called through the triad
        found = await vg.ok("find_capability", query="rename a tag in every note")
        assert found["items"][0]["name"] == "rename_tag"
        preview = await vg.ok("call_capability", name="rename_tag", arguments={"old": "topic", "new": "subject"})
        assert preview["tool"] == "rename_tag" and preview["result"]["dry_run"] is True
        assert "#topic" in vg.read("A.md")  # a dry run changes nothing
        await vg.err("find_capability", "validation_error", query="")


async def test_visibility_rules_narrow_the_lean_list(make_vault: Callable[..., Path]) -> None:
    cfg = {"hidden": ["read_note"], "disabled": ["list_tags"]}
    async with started(make_vault(VAULT), tool_visibility=cfg) as vg:
        advertised = {s.name for s in vg.app.dispatcher.listed()}
        assert advertised == ({*LEAN, *TRIAD} - {"read_note", "list_tags"})
        assert (await vg.ok("read_note", path="A"))["title"] == "A"  # hidden: still callable
        await vg.err("list_tags", "not_found")  # disabled: gone
        await vg.err("call_capability", "not_found", name="list_tags")
    async with started(make_vault(VAULT), tool_visibility={"require_read_only": True}) as vg:
        advertised = {s.name for s in vg.app.dispatcher.listed()}
        assert advertised == {*TRIAD, *(n for n in LEAN if not vg.app.registry.get(n).mutating)}  # type: ignore[union-attr]
        assert "write_note" not in advertised and "read_note" in advertised


async def test_lean_advertises_the_semantic_search_tools(make_vault: Callable[..., Path]) -> None:
    """The tools that answer by meaning are everyday tools: listed, so that a client that checks a
    result against the listed output schema (the MCP SDK lists every tool again for a tool it has
    not seen listed, on every call) does not list them all before each call."""
    async with started(make_vault(VAULT)) as vg:
        listed = {s.name for s in vg.app.dispatcher.listed()}
        assert {"search_semantic", "search_hybrid", "find_similar", "context_for_query"} <= listed
