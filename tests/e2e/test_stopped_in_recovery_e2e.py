"""`vaultgate serve` sent SIGTERM while its start rolls back a bulk call a crash cut short: the
start ends without the rollback (the one under way takes back what it had put back), the server
stops as a started one does and exits 0, the vault is as the crash left it, and the next start
rolls the call back whole. Before, the rollback's `server_stopping` came out of the start: the
lifespan failed, and the process exited as a server that could not start.

The server is `python -m tests.stopped_in_recovery` (the CLI's own `run_http`, with the
rollback's restores wrapped to signal the process after the first)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.plans.journal import Recorder
from service.vault.journal import RECORDER
from tests.conftest import snapshot, started
from tests.killed import run_until_killed

NOTES = {f"Batch/n{i}.md": f"# n{i}\n" for i in range(4)}


async def test_sigterm_during_the_start_up_rollback_exits_0_and_the_next_start_rolls_back(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    before = snapshot(root)
    async with started(root) as vg:  # a bulk call cut short by a crash, simulated in process
        journal = vg.app.services.plans.journal
        run_id = await journal.open_run("main", "someone", kind="bulk", goal="cut short", plan_hash="", total=1)
        recorder = Recorder(journal, run_id)  # untracked: its spool file is what a crash leaves
        token = RECORDER.set(recorder)
        try:
            for rel, text in NOTES.items():
                await vg.app.vaults["main"].files.write(vg.app.vaults["main"].paths.resolve(rel), text)
        finally:
            RECORDER.reset(token)
            recorder.close()
    crashed = snapshot(root)
    assert await run_until_killed("tests.stopped_in_recovery", str(root)) == 0
    assert snapshot(root) == crashed
    async with started(root) as vg:
        runs = await vg.app.state.fetchall("SELECT kind, status, undone_by IS NULL FROM plan_runs ORDER BY rowid")
        assert [tuple(r) for r in runs] == [("bulk", "interrupted", 0), ("undo", "failed", 1), ("undo", "done", 1)]
        assert snapshot(root) == before
