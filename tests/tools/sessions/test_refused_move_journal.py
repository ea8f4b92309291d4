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
from mcp import Client

from tests.conftest import e2e, snapshot, started


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


async def test_a_move_whose_source_vanished_at_the_rename_leaves_no_journal_records(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program deletes the source after the server found it: the rename fails (ENOENT),
    nothing moved, and the run's journal holds only its other changes — undo names no conflict on
    B.md (a file the run never wrote) and does not bring back the note the person deleted (R2 s62
    F4: only FileExistsError withdrew the move's records)."""
    from service.vault import dirfd

    real = dirfd.rename
    async with started(make_vault({"A.md": "# A\n"})) as vg:

        def rename(vault: Path, src: str, to: str, **kwargs: Any) -> list[str]:
            if to == "B.md":
                (vg.root / "A.md").unlink()  # a person deletes A.md (Obsidian, a sync) at that moment
            return real(vault, src, to, **kwargs)

        monkeypatch.setattr(dirfd, "rename", rename)
        run = await vg.ok("execute_plan", plan=_plan("A", "B"))
        assert run["status"] != "done", run
        monkeypatch.setattr(dirfd, "rename", real)
        dry = await vg.ok("undo_last_plan", dry_run=True)
        assert dry["conflicts"] == [] and dry["restored"] == ["C1.md"], dry
        undone = await vg.confirmed("undo_last_plan", run_id=run["run_id"])
        assert undone["conflicts"] == [] and undone["restored"] == ["C1.md"], undone
        assert not any(k.endswith(".md") for k in snapshot(vg.root)), snapshot(vg.root)


async def test_undo_after_a_source_vanished_at_the_rename_over_http(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.vault import dirfd

    real = dirfd.rename
    root = make_vault({"A.md": "# A\n"})

    def rename(vault: Path, src: str, to: str, **kwargs: Any) -> list[str]:
        if to == "B.md":
            (root / "A.md").unlink()
        return real(vault, src, to, **kwargs)

    async with e2e(root) as (url, _), Client(url) as client:
        monkeypatch.setattr(dirfd, "rename", rename)
        run = await client.call_tool("execute_plan", {"plan": _plan("A", "B")})
        assert run.structured_content is not None and run.structured_content["status"] != "done", run
        monkeypatch.setattr(dirfd, "rename", real)
        dry = await client.call_tool("undo_last_plan", {"dry_run": True})
        assert not dry.is_error and dry.structured_content is not None, dry
        assert dry.structured_content["conflicts"] == [] and dry.structured_content["restored"] == ["C1.md"]
