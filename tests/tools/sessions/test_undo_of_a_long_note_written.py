"""undo_last_plan of a run that wrote a note now over `[limits] max_note_bytes` (created it long, or
overwrote a note with a long text): the note is not read whole, neither for the undo's own journal
(its redo) nor for putting it back when a later restore of the same undo fails. It goes to the
trash (journaled as a move with its stamp, `service.vault.restore.set_aside`) and the bytes it
had before, if any, are written back; the redo brings it back from the trash."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.errors import Conflict
from service.plans.journal import Entry
from service.plans.undo import apply_undo, plan_undo
from tests.conftest import Harness, started
from tests.whole_reads import spy

LIMIT = 4096
LONG = "# Long\n\n" + "".join(f"entry {i}: plain text, no link\n" for i in range(400))  # ~11 KB, no '['
LIMITS = {"max_note_bytes": LIMIT, "max_indexed_note_chars": 2048}
VAULT = {"Home.md": "# Home\n", "Old.md": "# Old\n"}


def _plan(path: str, overwrite: bool) -> dict[str, object]:
    args = {"path": path, "content": LONG, "mode": "overwrite" if overwrite else "create"}
    return {"goal": "a long draft", "steps": [{"id": "w", "tool": "write_note", "args": args}]}


def _trashed(vg: Harness) -> list[str]:
    return sorted(p.relative_to(vg.root).as_posix() for p in (vg.root / ".trash").rglob("*.md"))


@pytest.mark.parametrize(("path", "before"), [("Draft", None), ("Old", "# Old\n")], ids=["created", "overwritten"])
async def test_a_long_note_a_run_wrote_is_undone_to_the_trash_unread_and_redone(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, path: str, before: str | None
) -> None:
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        run = await _run(vg, _plan(path, before is not None))
        assert run["status"] == "done" and vg.read(f"{path}.md") == LONG
        reads = spy(monkeypatch)
        out = await vg.confirmed("undo_last_plan")
        assert out["conflicts"] == [] and f"{path}.md" in out["restored"], out
        assert f"{path}.md" not in reads, reads
        if before is None:
            assert not (vg.root / f"{path}.md").exists()
        else:
            assert vg.read(f"{path}.md") == before
        [trashed] = _trashed(vg)
        assert (vg.root / trashed).read_text() == LONG
        await vg.confirmed("undo_last_plan", run_id=out["undo_run_id"])  # the redo
        assert vg.read(f"{path}.md") == LONG and _trashed(vg) == []
        if before is None:  # (an overwritten one: the redo reads the short note the undo wrote back)
            assert f"{path}.md" not in reads, reads


async def test_a_failed_undo_puts_the_long_note_back_unread(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        vault = next(iter(vg.app.vaults.values()))
        run = await _run(vg, _plan("Draft", False))
        entries = await vault_entries(vg, str(run["run_id"]))
        plan = plan_undo(vault.files, entries)
        assert plan.conflicts == [] and [e.path for e in plan.restores] == ["Draft.md"]
        plan.restores.append(Entry(99, "w", "file", "Home.md", None, b"# was\n", "0" * 32))  # fails: a conflict
        reads = spy(monkeypatch)
        with pytest.raises(Conflict):
            await apply_undo(vault.files, plan)
        assert vg.read("Draft.md") == LONG and _trashed(vg) == [] and "Draft.md" not in reads, reads


async def vault_entries(vg: Harness, run_id: str) -> list[Entry]:
    return await vg.app.plans.journal.entries(run_id)


async def _run(vg: Harness, plan: dict[str, object]) -> dict[str, object]:
    """execute_plan, confirmed when it asks (an overwrite does, a new note does not)."""
    out = await vg.call("execute_plan", plan=plan)
    return await vg.confirmed("execute_plan", plan=plan) if out.is_error else dict(out.structured or {})
