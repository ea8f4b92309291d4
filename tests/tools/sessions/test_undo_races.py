"""Two callers undoing one plan run at once used to both undo it (X2 s76, P2 s77): each read the
run not undone (`undone_by IS NULL`), each restored its files and recorded an undo run, the last
`mark_undone` won. The undo now claims the run first (`Journal.claim_undo`: its undo run opened and
named in the run's `undone_by` in one transaction, only while nobody else did), so exactly one
caller undoes it and the other is answered `conflict`, "already undone", naming the undo run.

In one process: two concurrent calls through the dispatch chain, held at a barrier after both
read the run. Two servers on one vault (two apps, one data folder: what two processes share, the
state database and the vault): the same, one call each; and two server processes
(`tests.undo_race`), held at a file barrier."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from service.obs.sessions import caller_hash
from service.plans.journal import Recorder
from service.plans.retention import prune
from service.tools.sessions import undo
from service.vault import restore
from service.vault.files import etag_of
from service.vault.journal import RECORDER
from tests.conftest import Harness, snapshot, started
from tests.killed import REPO

PLAN: dict[str, Any] = {
    "goal": "two notes",
    "steps": [
        {"id": "a", "tool": "create_note", "args": {"path": "Made/a", "content": "# a\n"}},
        {"id": "b", "tool": "append_note", "args": {"path": "Home", "content": "appended line"}},
    ],
}


def _barrier(monkeypatch: pytest.MonkeyPatch, parties: int) -> None:
    """Hold every undo call after its ACL check (it read the run, it has not acted) until
    `parties` calls are there; again each time (a cyclic barrier: the confirmation check runs it
    too)."""
    state: dict[str, Any] = {"arrived": 0, "there": anyio.Event()}

    async def meet() -> None:
        there = state["there"]
        state["arrived"] += 1
        if state["arrived"] == parties:
            state["arrived"], state["there"] = 0, anyio.Event()
            there.set()
        with anyio.fail_after(30):
            await there.wait()

    original_check = undo._check_acl

    async def check(ctx: Any, run_id: str, plan: Any) -> None:
        await original_check(ctx, run_id, plan)
        await meet()

    monkeypatch.setattr(undo, "_check_acl", check)


async def _race(calls: list[tuple[Harness, dict[str, Any]]]) -> list[Any]:
    results: list[Any] = [None] * len(calls)

    async def one(i: int, vg: Harness, args: dict[str, Any]) -> None:
        results[i] = await vg.call("undo_last_plan", **args)

    async with anyio.create_task_group() as tg:
        for i, (vg, args) in enumerate(calls):
            tg.start_soon(one, i, vg, args)
    return results


def _one_undid(results: list[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    won = [r.structured for r in results if not r.is_error]
    lost = [r.structured["error"] for r in results if r.is_error]
    assert len(won) == 1 and len(lost) == 1, results
    return won[0], lost[0]


async def _undo_runs(vg: Harness, run_id: str) -> list[tuple[Any, ...]]:
    rows = await vg.app.state.fetchall("SELECT id, status FROM plan_runs WHERE undoes = ?", (run_id,))
    return [tuple(r) for r in rows]


async def test_two_concurrent_undos_of_one_run_in_one_server_undo_it_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    before = snapshot(root)
    async with started(root, index={"watch": False}) as vg:
        run = await vg.ok("execute_plan", plan=PLAN)
        after_run = snapshot(root)
        by_id = {"run_id": run["run_id"], "elicit_token": await vg.token_for("undo_last_plan", run_id=run["run_id"])}
        latest = {"elicit_token": await vg.token_for("undo_last_plan")}
        assert snapshot(root) == after_run
        _barrier(monkeypatch, 2)
        won, lost = _one_undid(await _race([(vg, by_id), (vg, latest)]))
        assert won["run_id"] == run["run_id"] and sorted(won["restored"]) == ["Home.md", "Made", "Made/a.md"]
        assert lost["code"] == "conflict" and "already undone" in lost["message"], lost
        assert lost["details"] == {"run_id": run["run_id"], "undone_by": won["undo_run_id"]}
        assert await _undo_runs(vg, run["run_id"]) == [(won["undo_run_id"], "done")]
        assert snapshot(root) == before
        row = await vg.app.services.plans.journal.run(run["run_id"])
        assert row is not None and row.undone_by == won["undo_run_id"]
        monkeypatch.undo()
        redo = await vg.confirmed("undo_last_plan", run_id=won["undo_run_id"])  # undoing the undo redoes the run
        assert redo["run_id"] == won["undo_run_id"] and snapshot(root) == after_run


async def test_two_servers_on_one_vault_undo_one_run_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    before = snapshot(root)
    async with started(root, index={"watch": False}) as a, started(root, index={"watch": False}) as b:
        run = await a.ok("execute_plan", plan=PLAN)
        on_a = {"elicit_token": await a.token_for("undo_last_plan")}
        on_b = {"run_id": run["run_id"], "elicit_token": await b.token_for("undo_last_plan", run_id=run["run_id"])}
        _barrier(monkeypatch, 2)
        won, lost = _one_undid(await _race([(a, on_a), (b, on_b)]))
        assert won["run_id"] == run["run_id"]
        assert lost["code"] == "conflict" and lost["details"]["undone_by"] == won["undo_run_id"], lost
        assert await _undo_runs(a, run["run_id"]) == [(won["undo_run_id"], "done")]
        assert snapshot(root) == before


async def test_two_server_processes_on_one_vault_undo_one_run_once(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """Two OS processes (`python -m tests.undo_race`), each a server on the vault undoing the run
    through its dispatch chain, held after their ACL checks until both are there."""
    root = make_vault({"Home.md": "# Home\n"})
    before = snapshot(root)
    async with started(root, index={"watch": False}) as vg:
        run = await vg.ok("execute_plan", plan=PLAN)
    folder = tmp_path / "barrier"
    folder.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "tests.undo_race", str(root), str(folder), run["run_id"]]
    procs = [await anyio.open_process(command, env=env, cwd=REPO, stdout=None, stderr=None) for _ in range(2)]
    try:
        with anyio.fail_after(120):
            while len(list(folder.glob("at-*"))) < 2:  # noqa: ASYNC110 - the other processes' files
                assert all(p.returncode is None for p in procs), "a racing server process ended early"
                await anyio.sleep(0.01)
            (folder / "go").write_text("")
            for proc in procs:
                assert await proc.wait() == 0
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.kill()
                with anyio.fail_after(30):
                    await proc.wait()
    answers = [json.loads(p.read_text()) for p in sorted(folder.glob("answer-*.json"))]
    won = [a for a in answers if "error" not in a]
    lost = [a["error"] for a in answers if "error" in a]
    assert len(won) == 1 and len(lost) == 1, answers
    assert lost[0]["code"] == "conflict" and lost[0]["details"]["undone_by"] == won[0]["undo_run_id"], lost
    assert snapshot(root) == before
    async with started(root, index={"watch": False}) as vg:
        assert await _undo_runs(vg, run["run_id"]) == [(won[0]["undo_run_id"], "done")]


async def test_a_claimed_undo_cut_short_leaves_the_run_undoable(make_vault: Callable[..., Path]) -> None:
    """The undo's claim names a run that was killed (rolled back at the next start) or failed (its
    restores put back): the run is not undone, so undo_last_plan still takes it."""
    root = make_vault({"Home.md": "# Home\n"})
    before = snapshot(root)
    async with started(root, index={"watch": False}) as vg:
        run = await vg.ok("execute_plan", plan=PLAN)
        journal = vg.app.services.plans.journal
        row = await journal.run(run["run_id"])
        assert row is not None
        undo_id = await journal.claim_undo(row, "someone", "undo cut short")
        assert undo_id is not None and await journal.claim_undo(row, "someone", "again") is None
        recorder = Recorder(journal, undo_id)  # untracked: its spool file is what a crash leaves
        token = RECORDER.set(recorder)
        try:  # the undo's first restore, then the crash
            await restore.restore_file(vg.app.vaults["main"].files, "Made/a.md", None, etag_of(b"# a\n"))
        finally:
            RECORDER.reset(token)
            recorder.close()
    async with started(root, index={"watch": False}) as vg:
        assert (root / "Made/a.md").exists()  # the cut-short undo was rolled back at start
        undone = await vg.confirmed("undo_last_plan")
        assert undone["run_id"] == run["run_id"] and snapshot(root) == before


async def test_a_run_being_undone_or_whose_undo_failed_is_not_pruned(make_vault: Callable[..., Path]) -> None:
    """Retention keeps each caller's undo target: the run an undo is reversing right now (its
    claim names a running undo: if that fails, the claim is released and the run is the target
    again), and the run a failed undo left (a failed undo is no target: undo_last_plan skips it)."""
    async with started(make_vault({"Home.md": "# Home\n"}), index={"watch": False}) as vg:
        run = await vg.ok("execute_plan", plan=PLAN)
        journal = vg.app.services.plans.journal
        me = caller_hash(vg.principal.subject)
        row = await journal.run(run["run_id"])
        assert row is not None
        undo_id = await journal.claim_undo(row, me, "undo in flight")
        assert undo_id is not None
        assert await prune(journal.db, keep_runs=0, max_age_days=0) == 0
        await journal.close_run(undo_id, "failed", [], 0)
        await journal.release_claim(row.id, undo_id)
        with pytest.raises(RuntimeError):  # a failed undo with journaled restores (put back)
            async with journal.recording("main", me, kind="undo", goal="undo that failed", undoes=row.id):
                files = vg.app.vaults["main"].files
                await files.write(vg.app.vaults["main"].paths.resolve("Home.md"), "# Home\n\nagain\n")
                raise RuntimeError("failed midway")
        await prune(journal.db, keep_runs=0, max_age_days=0)
        assert await journal.run(row.id) is not None
        assert (await vg.ok("undo_last_plan", dry_run=True))["run_id"] == row.id
