"""A tool name describe_capability or call_capability does not know, in the default lean mode:
tools/list shows 23 of the catalogue's tools there, so 'list the tools with tools/list' (the hint
the lookup gives a direct call) sent an agent to a list without the tool it was after."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

VAULT = {"A.md": "# A\n\nalpha #topic\n"}


async def test_an_unknown_capability_points_at_find_capability_and_the_closest_names(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT)) as vg:
        listed = {s.name for s in vg.app.dispatcher.listed()}
        assert "rename_tag" not in listed  # lean: reachable through the triad only
        for tool, args in (
            ("call_capability", {"name": "rename_tags", "arguments": {"old": "topic", "new": "subject"}}),
            ("describe_capability", {"name": "rename_tags"}),
        ):
            error = await vg.err(tool, "not_found", **args)
            assert "find_capability" in error["hint"], error
            assert "tools/list" not in error["hint"].split("(")[0], error
            assert error["details"]["tool"] == "rename_tags"
            assert error["details"]["suggestions"][0] == "rename_tag", error
        assert "#topic" in vg.read("A.md")
        # a disabled tool stays indistinguishable from an unknown one: never suggested
    async with started(make_vault(VAULT), tool_visibility={"disabled": ["rename_tag"]}) as vg:
        error = await vg.err("call_capability", "not_found", name="rename_tags")
        assert "rename_tag" not in error["details"]["suggestions"], error
        nothing = await vg.err("describe_capability", "not_found", name="zz_no_such_tool")
        assert nothing["details"]["suggestions"] == []
