"""bulk_create_notes is all or nothing across a crash too: a server killed (SIGKILL) in the middle
of one leaves a journal, and the next start rolls the call back — the notes it wrote removed,
the note it overwrote restored byte for byte, the folders it made gone. A finished bulk call is
a journaled run like a plan's, so undo_last_plan takes it back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import snapshot, started
from tests.killed import kill_when_held

FILES = {"Existing.md": "# Existing\n\nkept byte for byte\n", "Other.md": "# Other\n"}


async def test_a_bulk_call_killed_midway_is_rolled_back_at_the_next_start(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault(FILES)
    before = snapshot(root)
    marker = tmp_path / "held"
    await kill_when_held("tests.bulk_killed", root, marker)
    assert (root / "Existing.md").read_text() == "# Replaced\n"  # half done on disk
    assert (root / "Bulk/Sub/n1.md").is_file() and not (root / "Bulk/Sub/n4.md").exists()
    async with started(root) as vg:
        assert snapshot(root) == before  # rolled back before the first call
        runs = await vg.app.state.fetchall("SELECT kind, status, undone_by IS NOT NULL FROM plan_runs ORDER BY rowid")
        assert [tuple(r) for r in runs] == [("bulk", "interrupted", 1), ("undo", "done", 0)]
        await vg.indexed()
        listed = sorted(i["path"] for i in (await vg.ok("list_notes"))["items"])
        assert listed == ["Existing.md", "Other.md"]


async def test_a_finished_bulk_call_is_undone_by_undo_last_plan(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    before = snapshot(root)
    async with started(root) as vg:
        notes = [{"path": "Existing.md", "content": "# New\n"}, {"path": "New/One.md", "content": "# One\n"}]
        await vg.confirmed("bulk_create_notes", notes=notes, overwrite=True)
        assert snapshot(root) != before
        out = await vg.confirmed("undo_last_plan")
        assert not out["conflicts"] and {"Existing.md", "New/One.md"} <= set(out["restored"])
    assert snapshot(root) == before
