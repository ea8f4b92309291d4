"""A file bookmark of a heading or a block is named the way a wikilink names it: add_bookmark
'[[Plan#Goals]]' bookmarks Projects/Plan.md with subpath '#Goals' (it was refused with
'section_not_supported', as for a tool that works on whole notes), and remove_bookmark takes the
same link for that bookmark and not the note's other one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

PLAN = "# Plan\n\n## Goals\n\nShip it. ^blk1\n"


async def test_a_wikilink_to_a_heading_or_block_is_a_file_bookmark_with_its_subpath(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Projects/Plan.md": PLAN})) as vg:
        goals = (await vg.ok("add_bookmark", type="file", path="[[Plan#Goals]]"))["item"]
        block = (await vg.ok("add_bookmark", type="file", path="Plan#^blk1"))["item"]
        whole = (await vg.ok("add_bookmark", type="file", path="[[Plan]]"))["item"]
        assert [(b["path"], b["subpath"]) for b in (goals, block, whole)] == [
            ("Projects/Plan.md", "#Goals"),
            ("Projects/Plan.md", "#^blk1"),
            ("Projects/Plan.md", None),
        ]
        await vg.err("add_bookmark", "already_exists", type="file", path="Plan", subpath="#Goals")
        err = await vg.err("add_bookmark", "validation_error", type="file", path="[[Plan#Goals]]", subpath="#Other")
        assert err["details"]["field"] == "subpath"
        gone = (await vg.ok("remove_bookmark", path="[[Plan#Goals]]"))["item"]
        assert (gone["path"], gone["subpath"]) == ("Projects/Plan.md", "#Goals")
        left = (await vg.ok("list_bookmarks"))["items"]
        assert [(b["path"], b["subpath"]) for b in left] == [("Projects/Plan.md", "#^blk1"), ("Projects/Plan.md", None)]
