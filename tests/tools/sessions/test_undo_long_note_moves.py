"""A move or rename of a note over `[limits] max_note_bytes` is journaled as one `move` with the
note's stamp (size, mtime, inode: `service.vault.journal.record_long_move`), never its bytes: the
note is not read whole (a 600 MB note cost 14 s and 1.9 GB peak to rename for its undo journal,
S1 s85 / J1 s87). It is still undone by undo_last_plan (and redone by undoing the undo) when it is
still the file the move left, and is a conflict otherwise: edited, deleted, or its old path taken
since. A note under the bound is journaled with its bytes as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.plans.journal import Entry
from service.plans.undo import plan_undo
from service.vault.journal import stamp_of
from tests.conftest import Harness, started
from tests.whole_reads import spy

LIMIT = 4096
LONG = "# Long\n\n" + "".join(f"entry {i}: plain text, no link\n" for i in range(400))  # ~11 KB, no '['
LIMITS = {"max_note_bytes": LIMIT, "max_indexed_note_chars": 2048}
VAULT = {"Home.md": "# Home\n", "Inbox/Long.md": LONG, "Small.md": "# Small\n"}


@pytest.fixture
def whole_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return spy(monkeypatch)


async def _journal(vg: Harness) -> list[tuple[Any, ...]]:
    rows = await vg.app.state.fetchall(
        "SELECT kind, path, dst, prior IS NULL, new_etag FROM plan_journal ORDER BY run_id, seq"
    )
    return [tuple(r) for r in rows]


async def test_a_long_note_renamed_is_journaled_unread_and_undone_and_redone(
    make_vault: Callable[..., Path], whole_reads: list[str]
) -> None:
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        await vg.indexed(60)
        whole_reads.clear()
        await vg.ok("rename_note", path="Inbox/Long", new_path="Inbox/Kept")
        assert vg.read("Inbox/Kept.md") == LONG and not (vg.root / "Inbox/Long.md").exists()
        [(kind, path, dst, no_prior, stamp)] = [r for r in await _journal(vg) if r[0] != "folder"]
        assert (kind, path, dst, no_prior) == ("move", "Inbox/Long.md", "Inbox/Kept.md", True)
        assert stamp.startswith(f"stat:{len(LONG.encode())}:")
        out = await vg.confirmed("undo_last_plan")
        assert out["conflicts"] == [] and "Inbox/Long.md" in out["restored"]
        assert vg.read("Inbox/Long.md") == LONG and not (vg.root / "Inbox/Kept.md").exists()
        await vg.confirmed("undo_last_plan", run_id=out["undo_run_id"])  # the redo
        assert vg.read("Inbox/Kept.md") == LONG and not (vg.root / "Inbox/Long.md").exists()
        assert not [r for r in whole_reads if r.endswith(("Long.md", "Kept.md"))], whole_reads


async def test_a_note_under_the_bound_is_journaled_with_its_bytes(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), limits={"max_note_bytes": len(LONG.encode())}) as vg:
        await vg.ok("rename_note", path="Inbox/Long", new_path="Inbox/Kept")
        kinds = [(r[0], r[1], r[3]) for r in await _journal(vg)]
        assert kinds == [("file", "Inbox/Kept.md", True), ("file", "Inbox/Long.md", False)]
        await vg.confirmed("undo_last_plan")
        assert vg.read("Inbox/Long.md") == LONG


async def _moved(vg: Harness) -> None:
    await vg.confirmed("move_note", path="Inbox/Long", new_path="Archive/Long.md")
    assert vg.read("Archive/Long.md") == LONG


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda root: (root / "Archive/Long.md").write_text(LONG + "edited\n"), id="edited"),
        pytest.param(lambda root: (root / "Archive/Long.md").unlink(), id="deleted"),
        pytest.param(lambda root: (root / "Archive/Long.md").rename(root / "Elsewhere.md"), id="moved"),
    ],
)
async def test_a_long_note_changed_since_its_move_is_a_conflict_and_stays(
    make_vault: Callable[..., Path], change: Callable[[Path], object]
) -> None:
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        await _moved(vg)
        change(vg.root)
        after = sorted(p.relative_to(vg.root).as_posix() for p in vg.root.rglob("*.md"))
        error = await vg.err("undo_last_plan", "conflict")
        [conflict] = error["details"]["conflicts"]
        assert conflict["path"] == "Archive/Long.md" and conflict["expected_etag"].startswith("stat:"), conflict
        out = await vg.confirmed("undo_last_plan", skip_conflicts=True)
        assert "Inbox/Long.md" not in out["restored"] and not (vg.root / "Inbox/Long.md").exists()
        assert sorted(p.relative_to(vg.root).as_posix() for p in vg.root.rglob("*.md")) == after


async def test_a_new_note_at_the_old_path_keeps_the_long_note_where_it_was_moved(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        await _moved(vg)
        (vg.root / "Inbox/Long.md").write_text("# a new one\n")
        error = await vg.err("undo_last_plan", "conflict")
        assert [c["path"] for c in error["details"]["conflicts"]] == ["Inbox/Long.md"]
        await vg.confirmed("undo_last_plan", skip_conflicts=True)
        assert vg.read("Archive/Long.md") == LONG and vg.read("Inbox/Long.md") == "# a new one\n"


async def test_a_plan_that_writes_a_long_note_then_moves_it_is_undone_whole(make_vault: Callable[..., Path]) -> None:
    plan = {
        "goal": "draft and file",
        "steps": [
            {"id": "mk", "tool": "create_note", "args": {"path": "Draft", "content": LONG}},
            {"id": "mv", "tool": "move_note", "args": {"path": "Draft", "new_path": "Archive/Draft.md"}},
        ],
    }
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done" and vg.read("Archive/Draft.md") == LONG
        assert ("move", "Draft.md", "Archive/Draft.md") in [r[:3] for r in await _journal(vg)]
        out = await vg.confirmed("undo_last_plan")
        assert out["conflicts"] == []
        assert not (vg.root / "Draft.md").exists() and not (vg.root / "Archive").exists()


async def test_a_long_note_move_that_never_happened_is_left_alone(make_vault: Callable[..., Path]) -> None:
    # a process killed between the record and the rename: the note is still at its old path, the
    # rollback (plan_undo) sees it untouched, not a conflict
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        vault = next(iter(vg.app.vaults.values()))
        stamp = stamp_of(vg.root, "Inbox/Long.md")
        entry = Entry(1, "bulk", "move", "Inbox/Long.md", "Archive/Long.md", None, stamp)
        plan = plan_undo(vault.files, [entry])
        assert plan.untouched == ["Inbox/Long.md"] and plan.conflicts == [] and plan.restores == []
        (vg.root / "Inbox/Long.md").write_text(LONG + "edited\n")  # not the note the move recorded
        assert [c["path"] for c in plan_undo(vault.files, [entry]).conflicts] == ["Archive/Long.md"]
