"""E2E (both eras, SDK client over real HTTP): a note created where another note has its name
lists the links it takes over (`links_now_here`: Obsidian's shortest-path rule moves them, no
link is rewritten), and get_backlinks / find_broken_links then show them on the new note; a deleted
one of two same-named notes lists the links that now name the other (`links_now_elsewhere`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.notes.test_new_note_takes_links import DELETE_VAULT, OLD, TAKEN, VAULT


async def test_a_new_note_says_which_links_it_takes(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            made = await ok(client, "create_note", {"path": "A/Idea.md", "content": "new\n"})
            listed = sorted(made["links_now_here"], key=lambda t: (t["path"], t["line"], t["target"]))
            assert listed == TAKEN and made["links_now_here_count"] == 4, made
            assert harness.read("Projects/Src.md") == VAULT["Projects/Src.md"]  # nothing rewritten
            await harness.settled()
            new = await ok(client, "get_backlinks", {"path": "A/Idea.md"})
            assert {b["path"] for b in new["items"]} == {"Projects/Src.md", "Other/Two.md"}
            old = await ok(client, "get_backlinks", {"path": OLD})
            assert {b["path"] for b in old["items"]} == {"Projects/Notes/Beside.md", "Projects/Path.md"}
            broken = await ok(client, "find_broken_links", {})
            assert {b["reason"] for b in broken["items"]} == {"no_heading", "no_block"}


async def test_a_deleted_note_says_which_links_it_passes_on(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(DELETE_VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            gone = await ok(client, "delete_note", {"path": "A/Idea.md"})
            assert gone["links_now_elsewhere_count"] == 4, gone
            assert {(t["path"], t["now"]) for t in gone["links_now_elsewhere"]} == {
                ("Projects/Src.md", OLD),
                ("Other/Two.md", OLD),
            }
            await harness.settled()
            broken = await ok(client, "find_broken_links", {})
            assert [(b["path"], b["reason"]) for b in broken["items"]] == [("Other/Path.md", "no_note")]
