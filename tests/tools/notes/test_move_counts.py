"""A move's dry run, its confirmation and its run count the same files.

Before, move_note's `files_changed` counted the notes whose links it rewrites (0 for a note no
other note links to by path), while the confirmation of the same call listed, and counted in
details.files_changed, every file the move changes: the moved files at both paths, the notes it
rewrites, the settings files it repoints. Vault below, move_note Target -> Archive/Target: the
dry run said 2, the confirmation 4 (and the run changed those 4). Now `files_changed` is every
file the move changes (in every page of a dry run), and `notes_rewritten` the notes it rewrites."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

VAULT = {
    "Target.md": "---\naliases: [Tgt]\n---\n# Target\n\n## Part\n\ntext ^blk\n\nSelf [[Target#Part]] and [[#Part]].\n",
    "A.md": "See [[Target]] and [[Target|shown]].\n",
    "B.md": "Heading [[Target#Part]] and block [[Target#^blk]].\n",
    "C.md": "Embed ![[Target]] and ![[Target#Part]].\n",
    "D.md": "Alias [[Tgt]].\n",
    "E.md": "Md link [t](Target.md) and [p](Target.md#Part).\n",
    "Sub/G.md": "Relative [[../Target]] path [[Target.md]].\n",
    "Proj/One.md": "# One\n\n[[Proj/Two]] and [[One#One]]\n",
    "Proj/Two.md": "# Two\n\n[[Proj/One|one]]\n",
    "Board.canvas": (
        '{"nodes":[{"id":"1","type":"file","file":"Target.md","x":0,"y":0,"width":1,"height":1}],"edges":[]}'
    ),
    ".obsidian/bookmarks.json": '{"items": [{"type": "file", "ctime": 1, "path": "Proj/One.md"}]}',
    ".obsidian/workspace.json": '{\n\t"main": {},\n\t"lastOpenFiles": [\n\t\t"Target.md"\n\t]\n}',
}

MOVES = [
    ("move_note", "Target", "Archive/Target"),  # bare links still fit: the path links, canvas, workspace
    ("move_note", "Target", "Archive/Renamed"),  # every link, the note's own among them
    ("rename_note", "Target", "Renamed"),  # no confirmation: the run is compared
    ("move_note", "Proj", "Archive/Proj"),  # a folder: its notes link to each other; a bookmark
]


async def _dry_run_pages(vg: Harness, tool: str, path: str, new_path: str) -> tuple[dict[str, Any], set[str]]:
    """The dry run in pages of one: the first page, and every note its pages list."""
    first: dict[str, Any] | None = None
    notes: set[str] = set()
    cursor: str | None = None
    while True:
        page = await vg.ok(
            tool, path=path, new_path=new_path, dry_run=True, limit=1, **({"cursor": cursor} if cursor else {})
        )
        first = first or page
        assert page["files_changed"] == first["files_changed"] and page["notes_rewritten"] == first["notes_rewritten"]
        notes |= {i["path"] for i in page["items"]}
        cursor = page.get("next_cursor")
        if not cursor:
            return first, notes


@pytest.mark.parametrize(("tool", "path", "new_path"), MOVES)
async def test_a_moves_dry_run_confirmation_and_run_count_the_same_files(
    make_vault: Callable[..., Path], tool: str, path: str, new_path: str
) -> None:
    async with started(make_vault(VAULT)) as vg:
        dry, notes = await _dry_run_pages(vg, tool, path, new_path)
        before = vg.snapshot()
        asked = await vg.call(tool, path=path, new_path=new_path, dry_run=False)
        assert asked.structured is not None
        if asked.is_error:
            error = asked.structured["error"]
            assert error["code"] == "elicit_required", error
            assert error["details"]["files_changed"] == dry["files_changed"], (dry, error["details"]["files"])
            run = await vg.confirmed(tool, path=path, new_path=new_path, dry_run=False)
        else:
            run = asked.structured
        changed = vg.changed_since(before)
        assert dry["files_changed"] == len(changed) == run["files_changed"], (dry, sorted(changed))
        assert dry["notes_rewritten"] == len(notes) == run["notes_rewritten"]
        if asked.is_error:
            assert set(error["details"]["files"]) == changed
