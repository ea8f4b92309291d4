"""A note renamed only in letter case (`meeting notes` → `Meeting Notes`), as Obsidian renames it,
is one file renamed and its links rewritten, not `already_exists` against itself (T1 s62 #5a); a
real other note at the new path still refuses the move."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

VAULT = {"Inbox/meeting notes.md": "# m\n", "Home.md": "see [[Inbox/meeting notes]]\n"}


@pytest.mark.parametrize(("tool", "new_path"), [("rename_note", "Meeting Notes"), ("move_note", "Inbox/Meeting Notes")])
async def test_a_case_only_rename_renames_the_one_file(
    make_vault: Callable[..., Path], tool: str, new_path: str
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        preview = await vg.ok(tool, path="Inbox/meeting notes", new_path=new_path, dry_run=True)
        assert preview["moved"] == [{"old_path": "Inbox/meeting notes.md", "new_path": "Inbox/Meeting Notes.md"}]
        await vg.ok(tool, path="Inbox/meeting notes", new_path=new_path, dry_run=False)
        assert sorted(p.name for p in (vg.root / "Inbox").iterdir()) == ["Meeting Notes.md"]
        assert vg.read("Inbox/Meeting Notes.md") == "# m\n"
        await vg.indexed()
        links = await vg.ok("get_backlinks", path="Inbox/Meeting Notes")  # the link still finds it
        assert [i["path"] for i in links["items"]] == ["Home.md"]


async def test_another_note_at_the_new_path_still_refuses(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({**VAULT, "Inbox/Meeting Notes.md": "# other\n"})) as vg:
        await vg.indexed()
        args = {"path": "Inbox/meeting notes", "new_path": "Meeting Notes", "dry_run": True}
        await vg.err("rename_note", "already_exists", **args)
        assert vg.read("Inbox/Meeting Notes.md") == "# other\n"


async def test_a_source_gone_meanwhile_beside_a_twin_is_already_exists_not_an_io_error(
    make_vault: Callable[..., Path],
) -> None:
    # the same-file check of a case-only rename met a source another program had just deleted
    # and raised FileNotFoundError, answered io_error (R3 s62 F8)
    from service.errors import AlreadyExists
    from service.graph.linkpath import PathSet
    from service.graph.moves import check_targets

    async with started(make_vault({**VAULT, "Inbox/Meeting Notes.md": "# other\n"})) as vg:
        vault = vg.app.vaults["main"]
        (vg.root / "Inbox/meeting notes.md").unlink()
        existing = PathSet(["Inbox/meeting notes.md", "Inbox/Meeting Notes.md", "Home.md"])
        with pytest.raises(AlreadyExists):
            check_targets(vault, {"Inbox/meeting notes.md": "Inbox/Meeting Notes.md"}, existing)
