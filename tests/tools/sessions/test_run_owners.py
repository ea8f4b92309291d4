"""A plan run belongs to the server that opened it (`service.plans.owners`): a second server on
the same vault and data folder (an HTTP daemon plus a stdio instance) leaves the first one's
running runs and their spool files alone at its start, where it used to mark them interrupted
and roll a live all-or-nothing call back under it (U8, s75). A run whose owner is gone (a stopped
server, a kill -9) is still recovered at the next start."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.plans import runs
from service.vault.journal import RECORDER
from tests.conftest import settings_for, snapshot, started
from tests.killed import held
from tests.tools.notes.test_bulk_killed import FILES


async def test_a_live_server_process_mid_bulk_call_is_left_alone_and_rolled_back_once_killed(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """tests/bulk_killed.py holds a real server process inside bulk_create_notes' commit (three
    of six notes written). A server started meanwhile on the same vault and data folder leaves
    the call as it is; after a kill -9 of that process, the next start rolls it back."""
    root = make_vault(FILES)
    before = snapshot(root)
    async with held("tests.bulk_killed", root, tmp_path / "held") as proc:
        async with started(root) as other:
            await other.ok("list_notes")
            [row] = await other.app.state.fetchall("SELECT kind, status, owner FROM plan_runs")
            assert tuple(row[:2]) == ("bulk", "running") and row[2]
        assert (root / "Existing.md").read_text() == "# Replaced\n" and (root / "Bulk/Sub/n1.md").is_file()
        assert list((settings_for(root).data_dir() / "plan-spool").glob("*.jnl"))  # its spool kept
        proc.kill()  # SIGKILL: the kernel drops its owner lock
    async with started(root) as vg:
        assert snapshot(root) == before
        runs = await vg.app.state.fetchall("SELECT kind, status, undone_by IS NOT NULL FROM plan_runs ORDER BY rowid")
        assert [tuple(r) for r in runs] == [("bulk", "interrupted", 1), ("undo", "done", 0)]
        owners = settings_for(root).data_dir() / "plan-owners"
        assert sorted(p.name for p in owners.iterdir()) == [f"{vg.app.services.plans.journal.owner.id}.lock"]


async def test_a_second_server_leaves_a_live_bulk_run_alone(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root) as a:
        journal = a.app.services.plans.journal
        async with journal.recording("main", "someone", kind="bulk", goal="a long call") as run_id:
            await a.ok("create_note", path="Made.md", content="# Made\n")
            async with started(root) as b:  # another process (stdio) starts meanwhile
                await b.ok("list_notes")
                assert (await journal.run(run_id)).status == "running"  # type: ignore[union-attr]
            assert (root / "Made.md").exists()
            assert list(journal.spool.glob("*.jnl")) == [journal.spool_path(run_id)]
        assert (await journal.run(run_id)).status == "done"  # type: ignore[union-attr]
        assert [e.path for e in await journal.entries(run_id)] == ["Made.md"]


async def test_a_second_server_leaves_a_live_plan_run_running(make_vault: Callable[..., Path]) -> None:
    """A live plan run (execute_plan, apply_finding) stays `running`: not interrupted, its claim
    not re-opened by the other server."""
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root) as a:
        journal = a.app.services.plans.journal
        run_id = await journal.open_run("main", "someone", kind="plan", goal="g", plan_hash="h", total=2)
        async with started(root) as b:
            await b.ok("list_notes")
        assert (await journal.run(run_id)).status == "running"  # type: ignore[union-attr]
        await journal.close_run(run_id, "done", [], 2)


async def test_two_live_servers_each_with_a_running_call_leave_each_other_alone(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root) as a:
        ja = a.app.services.plans.journal
        async with ja.recording("main", "someone", kind="bulk", goal="a's call") as run_a:
            await a.ok("create_note", path="A.md", content="# A\n")
            async with started(root) as b:
                jb = b.app.services.plans.journal
                async with jb.recording("main", "someone", kind="bulk", goal="b's call") as run_b:
                    await b.ok("create_note", path="B.md", content="# B\n")
                    async with started(root) as c:  # a third start sees two live owners
                        await c.ok("list_notes")
                    assert (root / "A.md").exists() and (root / "B.md").exists()
                    assert {(await ja.run(r)).status for r in (run_a, run_b)} == {"running"}  # type: ignore[union-attr]
            assert (await ja.run(run_b)).status == "done"  # type: ignore[union-attr]
            assert (root / "A.md").exists()
        assert (await ja.run(run_a)).status == "done"  # type: ignore[union-attr]
        assert [e.path for e in await ja.entries(run_a)] == ["A.md"]
        assert [e.path for e in await ja.entries(run_b)] == ["B.md"]
        assert not list(ja.spool.glob("*.jnl"))


async def test_a_stopped_servers_running_run_is_recovered_by_the_next_start(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that stopped with a run still open gave its lock up: the next start (another
    server, same process) finds the run's owner gone and rolls the bulk call back."""
    monkeypatch.setattr(runs, "DRAIN_S", 0.1)  # the stop waits that long for the open run
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root) as a:
        journal = a.app.services.plans.journal
        run_id = await journal.open_run("main", "someone", kind="bulk", goal="left open", plan_hash="", total=1)
        recorder = journal.recorder(run_id)
        recorder.step_id = "bulk"
        token = RECORDER.set(recorder)
        try:
            await a.ok("create_note", path="Left.md", content="# Left\n")
        finally:
            RECORDER.reset(token)
    async with started(root) as b:
        row = await b.app.services.plans.journal.run(run_id)
        assert row is not None and row.status == "interrupted" and row.undone_by is not None
        assert not (root / "Left.md").exists()


async def test_stray_entries_named_like_locks_neither_stop_a_start_nor_are_followed(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """A folder named 'x.lock' in plan-owners stopped every start (IsADirectoryError from the
    owners' sweep), and a 'y.lock' symbolic link was opened and locked through (R5, s75)."""
    root = make_vault({"Home.md": "# Home\n"})
    owners = settings_for(root).data_dir() / "plan-owners"
    owners.mkdir(parents=True, exist_ok=True)
    (owners / "x.lock").mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("kept\n")
    (owners / "y.lock").symlink_to(outside)
    async with started(root) as vg:
        await vg.ok("create_note", path="Made.md", content="# Made\n")
    assert outside.read_text() == "kept\n" and (owners / "x.lock").is_dir()
