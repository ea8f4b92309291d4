"""A note over `[limits] max_note_bytes` moved onto an existing note (`VaultFiles.move(...,
overwrite=True)`) is journaled as the replaced note's bytes (a `file` going absent) and one `move`
with the long note's stamp: the long note is never read whole (it was, for its undo journal, when
the move replaced a file). undo_last_plan moves it back and writes the replaced note back, and
undoing the undo does both again; a move that never ran (a process killed before the rename) is
left alone by the rollback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.obs.sessions import caller_hash
from service.plans.journal import Entry
from service.plans.undo import plan_undo
from service.vault.files import etag_of
from service.vault.journal import stamp_of
from tests.conftest import Harness, started
from tests.whole_reads import spy

LIMIT = 4096
LONG = "# Long\n\n" + "".join(f"entry {i}: plain text, no link\n" for i in range(400))  # ~11 KB, no '['
OLD = "# Old target\n\nkept for the undo\n"
LIMITS = {"max_note_bytes": LIMIT, "max_indexed_note_chars": 2048}
VAULT = {"Home.md": "# Home\n", "Inbox/Long.md": LONG, "Archive/Long.md": OLD}


async def _move_onto(vg: Harness) -> None:
    """The move as one journaled run of the test's caller (a run undo_last_plan finds)."""
    vault = vg.app.vaults["main"]
    journal = vg.app.services.plans.journal
    async with journal.recording("main", caller_hash(vg.principal.subject), kind="bulk", goal="move onto"):
        await vault.files.move(
            vault.paths.resolve("Inbox/Long.md"), vault.paths.resolve("Archive/Long.md"), overwrite=True
        )


async def test_a_long_note_moved_onto_a_note_is_journaled_unread_and_undone_and_redone(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        await vg.indexed(60)
        whole_reads = spy(monkeypatch)
        await _move_onto(vg)
        assert vg.read("Archive/Long.md") == LONG and not (vg.root / "Inbox/Long.md").exists()
        rows = await vg.app.state.fetchall("SELECT kind, path, dst, prior, new_etag FROM plan_journal ORDER BY seq")
        assert [tuple(r)[:3] for r in rows if r[0] != "stamp"] == [
            ("file", "Archive/Long.md", None),
            ("move", "Inbox/Long.md", "Archive/Long.md"),
        ]
        assert bytes(rows[0][3]) == OLD.encode() and rows[0][4] is None  # the replaced note, going absent
        assert str(rows[1][4]).startswith(f"stat:{len(LONG.encode())}:")  # the long note's stamp, not its bytes
        out = await vg.confirmed("undo_last_plan")
        assert out["conflicts"] == [], out
        assert vg.read("Inbox/Long.md") == LONG and vg.read("Archive/Long.md") == OLD
        await vg.confirmed("undo_last_plan", run_id=out["undo_run_id"])  # the redo
        assert vg.read("Archive/Long.md") == LONG and not (vg.root / "Inbox/Long.md").exists()
        assert not [r for r in whole_reads if r.endswith("Inbox/Long.md")], whole_reads
        assert all(r == "Archive/Long.md" for r in whole_reads), whole_reads  # only while it held OLD


async def test_a_long_note_moved_onto_an_edited_note_is_a_conflict_and_stays(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        await _move_onto(vg)
        (vg.root / "Archive/Long.md").write_text(LONG + "edited\n")
        error = await vg.err("undo_last_plan", "conflict")
        assert [c["path"] for c in error["details"]["conflicts"]] == ["Archive/Long.md"]
        assert vg.read("Archive/Long.md") == LONG + "edited\n" and not (vg.root / "Inbox/Long.md").exists()


async def test_a_long_note_move_onto_a_note_that_never_happened_is_left_alone(
    make_vault: Callable[..., Path],
) -> None:
    # a process killed between the records and the rename: both notes are where they were, and
    # the rollback (plan_undo) sees them untouched, not a conflict
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        vault = vg.app.vaults["main"]
        stamp = stamp_of(vg.root, "Inbox/Long.md")
        entries = [
            Entry(1, "bulk", "file", "Archive/Long.md", None, OLD.encode(), None),
            Entry(2, "bulk", "move", "Inbox/Long.md", "Archive/Long.md", None, stamp),
        ]
        plan = plan_undo(vault.files, entries)
        assert plan.conflicts == [] and plan.restores == []
        assert sorted(plan.untouched) == ["Archive/Long.md", "Inbox/Long.md"]
        assert etag_of(OLD.encode()) == vault.files.current_etag(vault.paths.resolve("Archive/Long.md"))
