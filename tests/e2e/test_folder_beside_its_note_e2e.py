"""E2E (both eras, SDK client over real HTTP): rename_note of a name that is both a folder and the
note beside it ('Projects/' and 'Projects.md') is ambiguous_note, nothing changed; 'Projects/'
renames the folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.tools.notes.test_folder_beside_its_note import VAULT


async def test_a_folder_and_its_note_are_asked_apart(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness):
        await harness.indexed()
        before = harness.snapshot()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            asked = await error(client, "rename_note", {"path": "Projects", "new_path": "Work"})
            assert asked["code"] == "ambiguous_note" and asked["details"]["candidates"] == ["Projects/", "Projects.md"]
            assert harness.snapshot() == before
            done = await ok(client, "rename_note", {"path": "Projects/", "new_path": "Work"})
            assert done["path"] == "Work" and (harness.root / "Projects.md").is_file()
