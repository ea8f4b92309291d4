"""The plan journal across a stop and a start of the same app object, and a stop that begins while
the start rolls back an interrupted change.

Before: the journal's `stopping` flag, set by the stop, was never cleared, so an app started again
answered `server_stopping` to every journaled change and plan; and a stop during the start-up
rollback of an interrupted bulk call (a signal while `vaultgate serve` starts) made the start
fail with `server_stopping` out of `PlanRuns.start` (the server exited as if it could not start).
Now the stop leaves the journal ready for a start as any other; a stop during the start-up
rollback ends the start without it (the rollback under way takes back what it put back, as every
journaled change does on a stop), and the next start rolls the interrupted run back whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.app import VaultgateApp
from service.plans.journal import Recorder
from service.vault import restore
from service.vault.journal import RECORDER
from tests.conftest import Harness, settings_for, snapshot

NOTES = {f"Batch/n{i}.md": f"# n{i}\n" for i in range(4)}


async def test_an_app_started_again_takes_journaled_changes_and_plans(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n", "Home.md": "[[A]]\n"})
    app = VaultgateApp(settings_for(root))
    async with app.running():
        vg = Harness(app, root)
        await vg.indexed()
        await vg.ok("rename_note", path="A", new_path="B")
    async with app.running():
        vg = Harness(app, root)
        await vg.indexed()
        await vg.ok("rename_note", path="B", new_path="C")  # a journaled change (kind bulk)
        append = {"id": "ap", "tool": "append_note", "args": {"path": "Home", "content": "x"}}
        plan = {"goal": "append", "steps": [append]}
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run
        undone = await vg.confirmed("undo_last_plan")  # an undo is journaled too
        assert undone["restored"] == ["Home.md"], undone
    assert (root / "Home.md").read_text() == "[[C]]\n" and (root / "C.md").exists()


async def _interrupted_bulk(app: VaultgateApp) -> None:
    """A bulk call cut short by a crash, simulated in process: its run opened and its notes
    written under a recorder the process does not track (its spool file is what a crash leaves;
    see tests/tools/sessions/test_interrupted_undo.py)."""
    journal = app.services.plans.journal
    run_id = await journal.open_run("main", "someone", kind="bulk", goal="bulk cut short", plan_hash="", total=1)
    recorder = Recorder(journal, run_id)
    token = RECORDER.set(recorder)
    try:
        files = app.vaults["main"].files
        for rel, text in NOTES.items():
            await files.write(app.vaults["main"].paths.resolve(rel), text, create_only=True)
    finally:
        RECORDER.reset(token)
        recorder.close()


async def test_a_stop_during_the_start_up_rollback_ends_the_start_and_the_next_rolls_back(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    before = snapshot(root)
    async with VaultgateApp(settings_for(root)).running() as crashed:
        await _interrupted_bulk(crashed)
    crashed_state = snapshot(root)
    assert crashed_state != before

    app = VaultgateApp(settings_for(root))
    put_back = restore.restore_file
    restores: list[str] = []

    async def stop_after_first(files: object, rel: str, data: bytes | None, expect: str | None) -> None:
        await put_back(files, rel, data, expect)  # type: ignore[arg-type]
        restores.append(rel)
        if len(restores) == 1 and data is None:  # one of the notes removed: the signal arrives
            app.plans.stopping()

    monkeypatch.setattr(restore, "restore_file", stop_after_first)
    async with app.running():  # the start ends without the rollback, not in server_stopping
        runs = await app.state.fetchall("SELECT kind, status, undone_by IS NULL FROM plan_runs ORDER BY rowid")
        assert [tuple(r) for r in runs] == [("bulk", "interrupted", 1), ("undo", "failed", 1)]
        assert snapshot(root) == crashed_state  # the removed note put back: as the crash left it
    monkeypatch.setattr(restore, "restore_file", put_back)
    async with app.running():  # the same object started again: the rollback, whole
        runs = await app.state.fetchall("SELECT kind, status, undone_by IS NULL FROM plan_runs ORDER BY rowid")
        assert [tuple(r) for r in runs] == [("bulk", "interrupted", 0), ("undo", "failed", 1), ("undo", "done", 1)]
        assert snapshot(root) == before
