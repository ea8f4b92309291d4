"""A long note's move is checked on undo by its stamp with its ctime (`service.vault.journal`): an
edit that keeps the size and sets the mtime back (an editor restoring it, `touch -r`) in the same
inode changes the ctime, which a user cannot set, so it is a conflict, not moved back. A rename sets
the ctime too (ext4, tmpfs): the stamp with the ctime is recorded right after our own rename, a
move whose record has none (killed between the two records, an older journal) is compared without
it, and so is an older move of a note an undo just moved back itself (a plan moving it twice)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.errors import Conflict
from service.plans.journal import Entry
from service.plans.undo import apply_undo, plan_undo
from service.vault.journal import loose, stamp_of
from tests.conftest import Harness, started

LIMIT = 4096
LONG = "# Long\n\n" + "".join(f"entry {i}: plain text, no link\n" for i in range(400))  # ~11 KB, no '['
LIMITS = {"max_note_bytes": LIMIT, "max_indexed_note_chars": 2048}
VAULT = {"Home.md": "# Home\n", "Inbox/Long.md": LONG, "Small.md": "# Small\n"}


async def _moves(vg: Harness) -> list[tuple[Any, ...]]:
    rows = await vg.app.state.fetchall("SELECT kind, path, dst, new_etag FROM plan_journal ORDER BY run_id, seq")
    return [tuple(r) for r in rows if r[0] == "move"]


def _edit_keeping_size_and_mtime(path: Path) -> None:
    before = os.stat(path)
    with open(path, "r+b") as fh:  # the same inode, the same size, other bytes
        fh.seek(2)
        fh.write(b"X")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the mtime set back, as `touch -r` does
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)


async def test_an_edit_that_sets_the_mtime_back_is_a_conflict_on_undo(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        await vg.ok("rename_note", path="Inbox/Long", new_path="Inbox/Kept")
        [(_, _, _, stamp)] = await _moves(vg)
        assert stamp == stamp_of(vg.root, "Inbox/Kept.md")  # the ctime the rename gave it, not the one before
        _edit_keeping_size_and_mtime(vg.root / "Inbox/Kept.md")
        error = await vg.err("undo_last_plan", "conflict")
        [conflict] = error["details"]["conflicts"]
        assert conflict["path"] == "Inbox/Kept.md" and conflict["expected_etag"] == stamp, conflict
        assert conflict["current_etag"] != stamp and loose(conflict["current_etag"]) == loose(stamp)
        await vg.confirmed("undo_last_plan", skip_conflicts=True)
        assert vg.read("Inbox/Kept.md").startswith("# Xong")  # the edited note stays where it is
        assert not (vg.root / "Inbox/Long.md").exists()


async def test_a_long_note_moved_twice_by_a_plan_is_undone_and_redone(make_vault: Callable[..., Path]) -> None:
    plan = {
        "goal": "file it twice",
        "steps": [
            {"id": "a", "tool": "move_note", "args": {"path": "Inbox/Long", "new_path": "Archive/Long.md"}},
            {"id": "b", "tool": "move_note", "args": {"path": "Archive/Long", "new_path": "Old/Long.md"}},
        ],
    }
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done" and vg.read("Old/Long.md") == LONG
        out = await vg.confirmed("undo_last_plan")
        assert out["conflicts"] == [] and vg.read("Inbox/Long.md") == LONG and not (vg.root / "Old").exists()
        redo = await vg.confirmed("undo_last_plan", run_id=out["undo_run_id"])
        assert redo["conflicts"] == [] and vg.read("Old/Long.md") == LONG
        assert not (vg.root / "Inbox/Long.md").exists()


async def test_a_move_recorded_without_its_ctime_is_still_undone(make_vault: Callable[..., Path]) -> None:
    # killed between the move's record and its stamp's, or journaled before stamps had a ctime
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        vault = next(iter(vg.app.vaults.values()))
        os.rename(vg.root / "Inbox/Long.md", vg.root / "Kept.md")
        entry = Entry(1, "bulk", "move", "Inbox/Long.md", "Kept.md", None, loose(stamp_of(vg.root, "Kept.md") or ""))
        plan = plan_undo(vault.files, [entry])
        assert plan.conflicts == [] and len(plan.restores) == 1
        await apply_undo(vault.files, plan)
        assert vg.read("Inbox/Long.md") == LONG and not (vg.root / "Kept.md").exists()


async def test_a_failed_undo_puts_a_long_note_back_by_the_stamp_its_move_back_left(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        vault = next(iter(vg.app.vaults.values()))
        await vg.ok("rename_note", path="Inbox/Long", new_path="Inbox/Kept")
        [(kind, path, dst, stamp)] = await _moves(vg)
        plan = plan_undo(vault.files, [Entry(1, "bulk", kind, path, dst, None, stamp)])
        assert plan.conflicts == [] and len(plan.restores) == 1
        # a later restore of the same undo fails: the note moved back is put back where the run left it
        plan.restores.append(Entry(2, "bulk", "file", "Small.md", None, b"# was\n", "0" * 32))
        with pytest.raises(Conflict):
            await apply_undo(vault.files, plan)
        assert vg.read("Inbox/Kept.md") == LONG and not (vg.root / "Inbox/Long.md").exists()
