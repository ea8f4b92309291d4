"""A link to a file the index keeps no note row for resolves once that file is made while the
server runs.

Before: the index update of a new `.base` (write_note), image or PDF stopped before re-resolving
links when the change held no note to store and nothing removed (`service.indexer.apply`:
return), so `![[Reading list.base]]` in a note written before the base stayed unresolved:
find_broken_links listed it twice ('no_note'), get_outlinks answered resolved false with an
obsidian://new URL, until the linking note was edited or the vault reindexed. A new note or
canvas (indexed as a file) resolved its links; these files did not. Found writing a base after
the note embedding it (tests/tools/notes/test_base_files.py's area)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

VAULT = {"Home.md": "![[Reading list.base]] ![[Reading list.base#Table]] ![[Flow.canvas]]\n", "B.md": "# B\n"}
CANVAS = [{"id": "a", "type": "text", "text": "x", "x": 0, "y": 0, "width": 10, "height": 10}]


async def test_links_to_a_base_and_a_canvas_made_later_resolve(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        broken = await vg.ok("find_broken_links")
        assert sorted({i["target"] for i in broken["items"]}) == ["Flow.canvas", "Reading list.base"]
        await vg.ok("write_note", path="Reading list.base", content="views:\n  - {type: table, name: Table}\n")
        await vg.ok("write_canvas", path="Flow.canvas", nodes=CANVAS, edges=[])
        assert (await vg.ok("find_broken_links"))["items"] == []
        out = await vg.ok("get_outlinks", path="Home")
        assert [(i["path"], i["resolved"]) for i in out["items"]] == [
            ("Reading list.base", True), ("Reading list.base", True), ("Flow.canvas", True)
        ]  # fmt: skip
        assert all(i["obsidian_url"].startswith("obsidian://open") for i in out["items"])
        await vg.ok("delete_note", path="Reading list.base")  # gone again: broken again
        assert [i["target"] for i in (await vg.ok("find_broken_links"))["items"]] == ["Reading list.base"] * 2
