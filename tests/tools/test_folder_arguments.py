"""A `folder` argument that names no folder, through the dispatch chain: every tool taking one
answers `note_not_found` with the folders meant in `details.suggestions` (the folder in another
letter case first, else the closest names beside it), never an empty answer as if the folder were
there and empty; a folder the caller may not read is never suggested."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

VAULT: dict[str, str | bytes] = {
    "Archive/Trips/Kyoto.md": "# Kyoto\n\n- [ ] book the ryokan\n",
    "Projects/Launch.md": "# Launch\n\n- [ ] write docs\n\nSee [[Kyoto]].\n",
    "Private/Diary.md": "- [ ] secret\n",
    "Assets/map.png": b"\x89PNG\r\n",
}

# (tool, arguments besides the folder, the argument's name)
FOLDER_TOOLS: list[tuple[str, dict[str, Any], str]] = [
    ("list_notes", {}, "folder"),
    ("list_folders", {}, "folder"),
    ("list_tasks", {}, "folder"),
    ("list_attachments", {}, "folder"),
    ("search_text", {"query": "kyoto"}, "folder"),
    ("search_notes", {"query": "kyoto"}, "folder"),
    ("search_notes", {"query": "kyoto"}, "path_scope"),
    ("search_tags", {"tags": ["x"]}, "folder"),
    ("bundle_folder", {}, "folder"),
    ("find_orphans", {}, "folder"),
    ("list_tags", {}, "folder"),
]


@pytest.fixture
async def fv(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    acl = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
    async with started(make_vault(VAULT), index={"watch": False}, acl=acl) as harness:
        await harness.indexed()
        yield harness


@pytest.mark.parametrize(("tool", "args", "name"), FOLDER_TOOLS)
async def test_a_folder_in_another_letter_case_is_suggested(
    fv: Harness, tool: str, args: dict[str, Any], name: str
) -> None:
    error = await fv.err(tool, "note_not_found", **args, **{name: "archive/trips"})
    assert error["details"]["suggestions"] == ["Archive/Trips"]
    assert error["details"]["path"] == "archive/trips"
    assert "Archive/Trips" in error["message"]


@pytest.mark.parametrize(("tool", "args", "name"), FOLDER_TOOLS)
async def test_a_folder_named_nowhere_is_an_error_with_close_names(
    fv: Harness, tool: str, args: dict[str, Any], name: str
) -> None:
    error = await fv.err(tool, "note_not_found", **args, **{name: "Projets"})
    assert error["details"]["suggestions"] == ["Projects"]
    error = await fv.err(tool, "note_not_found", **args, **{name: "Nowhere"})
    assert error["details"]["suggestions"] == []
    assert "list_folders" in error["hint"]


async def test_a_denied_folder_is_never_suggested(fv: Harness) -> None:
    for tool, args, name in FOLDER_TOOLS:
        error = await fv.err(tool, "note_not_found", **args, **{name: "privat"})
        assert error["details"]["suggestions"] == [], tool


async def test_the_folder_as_written_still_answers(fv: Harness) -> None:
    tasks = await fv.ok("list_tasks", folder="Projects")
    assert [t["text"] for t in tasks["items"]] == ["write docs"]
    notes = await fv.ok("search_notes", query="kyoto", path_scope="Archive/Trips")
    assert [i["path"] for i in notes["items"]] == ["Archive/Trips/Kyoto.md"]
    attachments = await fv.ok("list_attachments", folder="Assets")
    assert [i["path"] for i in attachments["items"]] == ["Assets/map.png"]


async def test_a_folder_named_by_its_own_name_is_suggested(fv: Harness) -> None:
    """'Obsidian Sync' for Help/Obsidian Sync: a folder named as a note is named, by its name
    alone, was note_not_found with no suggestion (the walk down the path found no top folder
    of that name nor one close to it; found by U7, session 74, on the Obsidian Help vault)."""
    for tool, args, name in FOLDER_TOOLS:
        error = await fv.err(tool, "note_not_found", **args, **{name: "trips"})
        assert error["details"]["suggestions"] == ["Archive/Trips"], tool
        assert "Archive/Trips" in error["message"]
    error = await fv.err("list_notes", "note_not_found", folder="diary")
    assert error["details"]["suggestions"] == []  # a note's name is no folder
