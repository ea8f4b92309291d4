"""undo_last_plan of a move whose note was deleted (or edited) since: the move is a conflict as a
whole. Its source is not put back, so a note the user deleted after the move does not come back
beside the copy in .trash (T1 s62 #4: the undo restored Inbox/Draft.md with no conflict)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, snapshot, started

VAULT = {"Home.md": "# Home\n", "Inbox/Draft.md": "# Draft\n\ntext\n"}
PLAN = {
    "goal": "file the draft",
    "steps": [
        {"id": "mv", "tool": "move_note", "args": {"path": "Inbox/Draft", "new_path": "Archive/Done"}},
        {"id": "mk", "tool": "create_note", "args": {"path": "Inbox/Next", "content": "# Next\n"}},
    ],
}


async def _moved(vg: Harness) -> None:
    run = await vg.confirmed("execute_plan", plan=PLAN)
    assert run["status"] == "done" and vg.read("Archive/Done.md").startswith("# Draft")


async def test_a_moved_note_deleted_since_is_a_conflict_and_never_comes_back(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await _moved(vg)
        await vg.ok("delete_note", path="Archive/Done")
        before = snapshot(vg.root)
        error = await vg.err("undo_last_plan", "conflict")
        assert [c["path"] for c in error["details"]["conflicts"]] == ["Archive/Done.md"]
        out = await vg.confirmed("undo_last_plan", skip_conflicts=True)
        assert "Inbox/Draft.md" not in out["restored"] and not (vg.root / "Inbox/Next.md").exists()
        assert not (vg.root / "Inbox/Draft.md").exists() and (vg.root / ".trash/Archive/Done.md").is_file()
        notes = {k for k in before if k.endswith(".md")} - {"Inbox/Next.md"}  # the rest of the run is undone
        assert {k for k in snapshot(vg.root) if k.endswith(".md")} == notes


async def test_a_moved_note_edited_since_keeps_its_edit_and_its_source_stays_gone(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await _moved(vg)
        (vg.root / "Archive/Done.md").write_text("# Draft\n\nedited by a human\n")
        error = await vg.err("undo_last_plan", "conflict")
        assert [c["path"] for c in error["details"]["conflicts"]] == ["Archive/Done.md"]
        await vg.confirmed("undo_last_plan", skip_conflicts=True)
        assert vg.read("Archive/Done.md").endswith("edited by a human\n")
        assert not (vg.root / "Inbox/Draft.md").exists()  # not a second copy of the note


async def test_an_untouched_move_is_still_undone(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        before = snapshot(vg.root)
        await _moved(vg)
        out = await vg.confirmed("undo_last_plan")
        assert out["conflicts"] == [] and not (vg.root / "Archive/Done.md").exists()
        assert {k: v for k, v in snapshot(vg.root).items() if k.endswith(".md")} == {
            k: v for k, v in before.items() if k.endswith(".md")
        }


async def test_a_new_note_at_the_old_path_keeps_the_moved_one_where_it_is(make_vault: Callable[..., Path]) -> None:
    # the old path is a conflict: undoing the move would remove the moved note with nowhere to go
    # back to (R2 s62 F1: with skip_conflicts the moved note's text left the vault)
    async with started(make_vault(VAULT)) as vg:
        await _moved(vg)
        (vg.root / "Inbox/Draft.md").write_text("# a new draft by the person\n")
        error = await vg.err("undo_last_plan", "conflict")
        assert [c["path"] for c in error["details"]["conflicts"]] == ["Inbox/Draft.md"]
        await vg.confirmed("undo_last_plan", skip_conflicts=True)
        assert vg.read("Archive/Done.md") == VAULT["Inbox/Draft.md"]
        assert vg.read("Inbox/Draft.md") == "# a new draft by the person\n"


async def test_two_notes_of_the_same_bytes_deleted_together_both_come_back(make_vault: Callable[..., Path]) -> None:
    # a delete records the note then its trash copy: the first note's trash copy followed by the
    # second note's delete of the same bytes is no move (R2 s62 F5: undo then lost Bar)
    same = "---\nentityType: team\n---\n\n## Observations\n"
    async with started(make_vault({"Home.md": "# Home\n", "Memory/Foo.md": same, "Memory/Bar.md": same})) as vg:
        plan = {
            "goal": "prune",
            "steps": [{"id": "d", "tool": "delete_entities", "args": {"entityNames": ["Foo", "Bar"]}}],
        }
        assert (await vg.confirmed("execute_plan", plan=plan))["status"] == "done"
        shutil.rmtree(vg.root / ".trash")  # the person empties the trash
        out = await vg.confirmed("undo_last_plan")
        assert out["conflicts"] == []
        assert vg.read("Memory/Foo.md") == same and vg.read("Memory/Bar.md") == same
