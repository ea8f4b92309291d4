"""A plan step's change of an entity note is written alone, never in another call's group commit.

`EntityStore.update` writes the changes of calls waiting for one note together (group commit),
in the context of the call that gets the note's lock. A plan step (an `apply_finding`, an
`execute_plan`) records what it changes in the plan journal through a context variable, so
`undo_last_plan` can reverse it: found by U8 (s75) applying a contradiction while four agents
added observations to that entity over HTTP — the run's supersede was written by another call's
group and journaled nothing (the run was not undoable; `undo_last_plan` reached back to an older
run instead), and when the step's call wrote the group, the journal's prior text predated the
other agents' acknowledged observations, which the undo then removed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.conftest import Harness

NOTE = "Memory/Ann.md"
FACT = "another agent's fact"


async def _waiting_for(lock: asyncio.Lock, count: int) -> None:
    """Until `count` calls wait for the note's lock."""
    for _ in range(6000):
        if len(lock._waiters or ()) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} calls never waited for the lock of {NOTE}")


async def _race(vg: Harness, plan_first: bool) -> str:
    """The plan's supersede and another caller's add wait for the note's lock, in that order (or the other)."""
    await vg.ok(
        "create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": ["Lives in Oslo"]}]
    )
    await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["Lives in Bergen"]}])
    steps = [
        {
            "id": "sup",
            "tool": "supersede_observation",
            "args": {"entityName": "Ann", "observation": "Lives in Oslo", "superseded_by": "Lives in Bergen"},
        }
    ]
    plan: dict[str, Any] = {"goal": "mark Ann's older city as superseded", "steps": steps}
    add = {"observations": [{"entityName": "Ann", "contents": [FACT]}]}
    lock = vg.app.services.memory_writes.locks("main", NOTE)  # the app's lock of the note
    async with lock:
        if plan_first:
            first = asyncio.create_task(vg.call("execute_plan", plan=plan))
            await _waiting_for(lock, 1)
            second = asyncio.create_task(vg.call("add_observations", **add))
        else:
            first = asyncio.create_task(vg.call("add_observations", **add))
            await _waiting_for(lock, 1)
            second = asyncio.create_task(vg.call("execute_plan", plan=plan))
        await _waiting_for(lock, 2)
    results = await asyncio.gather(first, second)
    assert not any(r.is_error for r in results), [r.structured for r in results]
    run = next(r.structured for r in results if r.structured is not None and "run_id" in r.structured)
    assert run["status"] == "done", run
    text = vg.read(NOTE)
    assert FACT in text and "superseded_by" in text
    return str(run["run_id"])


async def test_undo_of_a_plan_written_before_another_callers_add_keeps_that_add(vg: Harness) -> None:
    """The plan's step got the lock first: its run holds its own write; the other call's add came
    after it, so the undo finds the note changed since (a conflict, as for any file) and takes
    nothing back — before, the step wrote both and its undo removed the other's observation."""
    run_id = await _race(vg, plan_first=True)
    refused = await vg.err("undo_last_plan", "conflict")
    assert refused["details"]["run_id"] == run_id
    assert [c["path"] for c in refused["details"]["conflicts"]] == [NOTE]
    text = vg.read(NOTE)
    assert FACT in text and "superseded_by" in text, text


async def test_undo_of_a_plan_written_after_another_callers_add_reverses_it(vg: Harness) -> None:
    """The other call's add got the lock first: the plan's step is written after it, in its own
    context, so its run is journaled and undone — before, the add's group wrote the step's change,
    the run journaled nothing and undo_last_plan found no run to undo."""
    run_id = await _race(vg, plan_first=False)
    undone = await vg.confirmed("undo_last_plan")
    assert undone["run_id"] == run_id and undone["restored"] == [NOTE] and undone["conflicts"] == [], undone
    text = vg.read(NOTE)
    assert "superseded_by" not in text and FACT in text, text
