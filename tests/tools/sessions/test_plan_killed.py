"""A server process killed (SIGKILL) in the middle of a plan leaves a journal that undo applies.

The plan runs in a real subprocess (tests/plan_killed.py) that is held halfway through a rename's
commit — some files written, others not — and killed there: no rollback, no clean shutdown.
A new server on the same data folder finds the run `interrupted` and undo_last_plan puts every
file back byte for byte, the journaled-but-never-written ones included.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path

from service.plans.spool import read_records
from service.vault.temps import sweep
from tests.conftest import settings_for, snapshot, started
from tests.killed import kill_when_held, run_until_killed
from tests.plan_vault import plan_files


async def test_undo_after_the_server_was_killed_mid_plan(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    root = make_vault(plan_files())
    before = snapshot(root)
    marker = tmp_path / "held"
    await kill_when_held("tests.plan_killed", root, marker)
    assert (root / "K/c.md").is_file() and (root / "Move/m0 renamed.md").is_file()
    assert not (root / "K/never.md").exists() and snapshot(root) != before
    async with started(root) as vg:
        [row] = await vg.app.state.fetchall("SELECT status, id FROM plan_runs")
        assert row[0] == "interrupted"
        run = await vg.ok("get_plan_run", run_id=row[1])  # how far it got, as stored at each step's end
        assert run["status"] == "interrupted" and run["calls_done"] >= 5, run
        steps = {s["id"]: (s["status"], s["calls"]) for s in run["steps"]}
        assert steps["create"] == ("ok", 3) and steps["append"] == ("ok", 2), steps
        assert steps["after"] == ("not_run", 0), steps
        out = await vg.confirmed("undo_last_plan")
        assert not out["conflicts"]
    assert snapshot(root) == before


async def test_a_kill_between_the_journal_row_and_the_write_leaves_an_applicable_journal(
    make_vault: Callable[..., Path],
) -> None:
    """The journal record is in the run's spool file (written in the worker thread) before the file
    changes: a SIGKILL right after it finds the prior bytes recorded and the file untouched; the
    next start moves the spool into the journal table and undo applies it."""
    root = make_vault(plan_files())
    before = snapshot(root)
    killed = await run_until_killed("tests.plan_killed", str(root), str(root.parent / "unused"), "in-write")
    assert killed == -signal.SIGKILL
    assert (root / "Notes/n00.md").read_text().endswith("x")  # the foreach item before it was written
    assert (root / "Notes/n01.md").read_bytes() == before["Notes/n01.md"]  # killed before its write
    [spooled] = (settings_for(root).data_dir() / "plan-spool").glob("*.jnl")
    last = list(read_records(spooled.read_bytes()))[-1]
    assert last[3] == "Notes/n01.md" and last[5] == before["Notes/n01.md"]  # its prior bytes, recorded
    async with started(root) as vg:
        [row] = await vg.app.state.fetchall("SELECT status FROM plan_runs")
        assert row[0] == "interrupted"
        paths = [r[0] for r in await vg.app.state.fetchall("SELECT path FROM plan_journal ORDER BY seq")]
        assert paths[-1] == "Notes/n01.md"  # recorded, never written
        assert not spooled.exists()  # imported into the table at start-up
        out = await vg.confirmed("undo_last_plan")
        assert not out["conflicts"]
    # The killed write's temp file (written, not renamed): the start of a process after it sweeps it;
    # this test's app started before the child wrote it, so the sweep is run as a later start's would.
    [leftover] = [rel for rel in snapshot(root) if rel.endswith(".vgtmp")]
    assert leftover.startswith("Notes/.n01.md.")
    assert sweep(root, [leftover], started=time.time()) == [leftover]
    assert snapshot(root) == before


async def test_a_create_killed_after_its_journal_record_leaves_an_applicable_journal(
    make_vault: Callable[..., Path],
) -> None:
    """The same window for a create (`create_note`, a create-only write): killed once the journal
    holds the note's record (absent before), before anything is written; the note is not there,
    and undo removes what the run created before it."""
    root = make_vault(plan_files())
    before = snapshot(root)
    killed = await run_until_killed("tests.plan_killed", str(root), str(root.parent / "unused"), "in-write", "K/b.md")
    assert killed == -signal.SIGKILL
    assert (root / "K/a.md").is_file() and not (root / "K/b.md").exists()  # killed before its write
    [spooled] = (settings_for(root).data_dir() / "plan-spool").glob("*.jnl")
    last = list(read_records(spooled.read_bytes()))[-1]
    assert last[2:4] == ("file", "K/b.md") and last[5] is None  # recorded: absent before
    assert [rel for rel in snapshot(root) if rel.endswith(".vgtmp")] == []  # no temp file yet
    async with started(root) as vg:
        [row] = await vg.app.state.fetchall("SELECT status FROM plan_runs")
        assert row[0] == "interrupted"
        out = await vg.confirmed("undo_last_plan")
        assert not out["conflicts"] and "K/a.md" in out["restored"], out
    assert snapshot(root) == before
