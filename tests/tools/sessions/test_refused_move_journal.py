"""A move refused at the rename itself (another program created the destination after the
server looked: `dirfd.rename` without replace answers FileExistsError) changed nothing, so it
leaves nothing in the run's journal: undoing the run puts back its other changes and lists no
conflict on the other program's file (before, the move's two records stayed and undo named the
destination a conflict)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import snapshot, started


def _plan(src: str, dst: str) -> dict[str, object]:
    return {
        "goal": "refused move",
        "steps": [
            {"id": "c", "tool": "create_note", "args": {"path": "C1", "content": "made by the plan\n"}},
            {"id": "m", "tool": "move_note", "args": {"path": src, "new_path": dst}, "dependsOn": ["c"]},
        ],
    }


def _create_at_rename(monkeypatch: pytest.MonkeyPatch, root: Path, dst: str, make: Callable[[Path], None]) -> None:
    from service.vault import dirfd

    real = dirfd.rename

    def rename(vault: Path, src: str, to: str, **kwargs: Any) -> list[str]:
        if to == dst:  # another program creates the destination after the server found it free
            make(root / dst)
        return real(vault, src, to, **kwargs)

    monkeypatch.setattr(dirfd, "rename", rename)


@pytest.mark.parametrize("kind", ["note", "folder"])
async def test_a_move_refused_at_the_rename_leaves_no_journal_records(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # a folder moves note by note: the person's note arrives at the first one's destination
    files = {"A.md": "# A\n"} if kind == "note" else {"F/A.md": "# A\n", "F/Z.md": "# Z\n"}
    src, dst, at = ("A.md", "B.md", "B.md") if kind == "note" else ("F", "G", "G/A.md")

    def make(path: Path) -> None:
        path.parent.mkdir(exist_ok=True)
        path.write_text("# saved by a person\n")

    async with started(make_vault(files)) as vg:
        before = snapshot(vg.root)
        _create_at_rename(monkeypatch, vg.root, at, make)
        run = await vg.ok("execute_plan", plan=_plan(src, dst))
        assert run["status"] != "done", run
        assert vg.read("C1.md") == "made by the plan\n"
        made = snapshot(vg.root)
        dry = await vg.ok("undo_last_plan", dry_run=True)
        assert dry["conflicts"] == [], dry
        undone = await vg.confirmed("undo_last_plan", run_id=run["run_id"])
        # (a folder the move found missing, G, stays recorded as the run's: undo removes it only
        # when empty, so the person's G/A.md keeps it)
        assert undone["conflicts"] == [] and [p for p in undone["restored"] if p != "G"] == ["C1.md"], undone
        after = snapshot(vg.root)
        assert "C1.md" not in after
        assert after == {k: v for k, v in made.items() if k != "C1.md"}
        assert all(after[k] == v for k, v in before.items())  # the moved file is where it was
