"""Two servers starting together after a crash used to both roll back the same interrupted
all-or-nothing call (X1 s75, found not fixed): both read it not undone, both recorded an undo run,
the second one empty (every file already restored: etag conflicts, skipped), and the second
overwrote `undone_by`. A start now claims the run before rolling it back
(`Journal.claim_rollback`: its undo run opened and named in `undone_by` in one transaction, only
while nobody else did), so exactly one undo run reverses it. A claim whose rollback died with its
process is taken up again by the next start."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

import anyio
from anyio.abc import Process

from service.plans.journal import Recorder
from service.plans.retention import prune
from service.storage.driver import read_only
from service.vault import restore
from service.vault.files import etag_of
from service.vault.journal import RECORDER
from tests.conftest import Harness, settings_for, snapshot, started
from tests.killed import REPO

NOTES = {f"Batch/n{i}.md": f"# n{i}\n" for i in range(4)}
ROUNDS = 8


async def _cut_short(vg: Harness) -> str:
    """A bulk run whose process died after writing NOTES (its owner's lock is released when `vg`
    stops, so the next start finds it a dead process's); its id."""
    journal = vg.app.services.plans.journal
    run_id = await journal.open_run("main", "someone", kind="bulk", goal="cut short", plan_hash="", total=1)
    recorder = Recorder(journal, run_id)  # untracked: its spool file is what a crash leaves
    token = RECORDER.set(recorder)
    try:
        vault = vg.app.vaults["main"]
        for rel, text in NOTES.items():
            await vault.files.write(vault.paths.resolve(rel), text)
    finally:
        RECORDER.reset(token)
        recorder.close()
    return run_id


def _count(folder: Path, pattern: str) -> int:
    return len(list(folder.glob(pattern)))


async def _appear(folder: Path, pattern: str, count: int, procs: list[Process]) -> None:
    with anyio.fail_after(120):
        while await anyio.to_thread.run_sync(_count, folder, pattern) < count:  # noqa: ASYNC110 - another process's files
            assert all(p.returncode is None for p in procs), "a racing server process ended early"
            await anyio.sleep(0.01)


async def test_two_servers_starting_together_roll_an_interrupted_call_back_once(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    before = snapshot(root)
    folder = tmp_path / "barrier"
    folder.mkdir()
    state = settings_for(root).data_dir() / "state.db"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "tests.rollback_race", str(root), str(folder), str(ROUNDS)]
    procs = [await anyio.open_process(command, env=env, cwd=REPO, stdout=None, stderr=None) for _ in range(2)]
    try:
        for i in range(ROUNDS):
            async with started(root, index={"watch": False}) as vg:
                run_id = await _cut_short(vg)
            assert snapshot(root) != before
            (folder / f"prep-{i}").write_text("")
            await _appear(folder, f"at-{i}-*", 2, procs)
            (folder / f"go-{i}").write_text("")  # both at their rollback: let them race
            await _appear(folder, f"done-{i}-*", 2, procs)
            with contextlib.closing(read_only(str(state))) as conn:  # the index's own SQLite library
                undos = conn.execute("SELECT id, status FROM plan_runs WHERE undoes = ?", (run_id,)).fetchall()
                [[undone_by]] = conn.execute("SELECT undone_by FROM plan_runs WHERE id = ?", (run_id,)).fetchall()
            assert len(undos) == 1, f"round {i}: {len(undos)} rollbacks of one run"
            assert undos == [(undone_by, "done")]
            assert snapshot(root) == before
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.kill()
            with anyio.fail_after(30):
                await proc.wait()


async def test_a_claimed_rollback_cut_short_is_taken_up_by_the_next_start(make_vault: Callable[..., Path]) -> None:
    """A start claimed the run, restored one note and died: the next start rolls the cut-short
    rollback back (the note is back), then rolls the run back whole under a new claim."""
    root = make_vault({"Home.md": "# Home\n"})
    before = snapshot(root)
    async with started(root, index={"watch": False}) as vg:
        run_id = await _cut_short(vg)
        journal = vg.app.services.plans.journal
        await journal.db.run_write(
            lambda c: c.execute("UPDATE plan_runs SET status = 'interrupted' WHERE id = ?", (run_id,))
        )
        row = await journal.run(run_id)
        assert row is not None
        undo_id = await journal.claim_rollback(row, "vaultgate", "roll back")
        assert undo_id is not None and await journal.claim_rollback(row, "vaultgate", "again") is None
        recorder = Recorder(journal, undo_id)
        token = RECORDER.set(recorder)
        try:  # the rollback's first restore, then the crash
            await restore.restore_file(vg.app.vaults["main"].files, "Batch/n3.md", None, etag_of(b"# n3\n"))
        finally:
            RECORDER.reset(token)
            recorder.close()
        assert not (root / "Batch/n3.md").exists() and (root / "Batch/n0.md").exists()
    async with started(root, index={"watch": False}) as vg:
        assert snapshot(root) == before
        rows = await vg.app.state.fetchall("SELECT id, kind, status, undoes, undone_by FROM plan_runs ORDER BY rowid")
        by_id = {r[0]: tuple(r[1:]) for r in rows}
        assert by_id[undo_id][:3] == ("undo", "interrupted", run_id) and by_id[undo_id][3] is not None
        final = by_id[run_id][3]
        assert final not in (None, undo_id) and by_id[final][:3] == ("undo", "done", run_id)


async def test_a_run_claimed_by_a_rollback_cut_short_is_not_pruned(make_vault: Callable[..., Path]) -> None:
    """Its journal is the way back: pruning it (it was no longer `undone_by IS NULL`) would leave
    the vault half changed for good, e.g. while its vault is not served."""
    async with started(make_vault({"Home.md": "# Home\n"}), index={"watch": False}) as vg:
        run_id = await _cut_short(vg)
        journal = vg.app.services.plans.journal
        await journal.db.run_write(
            lambda c: c.execute("UPDATE plan_runs SET status = 'interrupted' WHERE id = ?", (run_id,))
        )
        row = await journal.run(run_id)
        assert row is not None
        undo_id = await journal.claim_rollback(row, "vaultgate", "roll back")
        assert undo_id is not None
        await journal.db.run_write(
            lambda c: c.execute("UPDATE plan_runs SET status = 'interrupted' WHERE id = ?", (undo_id,))
        )
        assert await prune(journal.db, keep_runs=0, max_age_days=0) == 0
        assert [r.id for r in await journal.interrupted(kind="bulk")] == [run_id]  # still to roll back
        await journal.release_claim(run_id, undo_id)
        assert (await journal.run(run_id)).undone_by is None  # type: ignore[union-attr]
