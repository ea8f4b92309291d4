"""Concurrent plan steps: which steps may overlap, and the runner running them side by side.

No test here depends on timing: the fake caller of the concurrency tests holds a call until the
other call expected alongside it has started (a barrier), so a runner that ran those steps one
after the other would never finish (a generous bound turns that into a failure instead of a
hang); a dependent step asserts, when it starts, that what it needs has finished.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from service.plans import graph
from service.plans.check import Checked
from service.plans.model import Plan
from service.plans.runner import CallError, Runner, RunState, StepOutcome
from service.plans.schedule import interferes, run_after
from service.plans.summary import PlanEffects
from tests.unit.plans.test_refs_and_graph import _Journal

Touch = dict[str, frozenset[str] | None]


def test_reads_overlap_changes_of_disjoint_known_files_overlap_the_rest_keep_their_order() -> None:
    touches: Touch = {"w1": frozenset({"A.md"}), "w2": frozenset({"B.md"}), "w3": frozenset({"A.md"}), "wx": None}
    touches["f"] = frozenset({"Dir"})
    touches["in"] = frozenset({"Dir/n.md"})
    assert not interferes("r1", "r2", touches)  # two reads
    assert interferes("r1", "w1", touches)  # a read and a change: as listed
    assert not interferes("w1", "w2", touches)
    assert interferes("w1", "w3", touches)  # the same file
    assert interferes("w1", "wx", touches)  # files known only at run time
    assert interferes("f", "in", touches)  # a folder and a file in it


def _checked(steps: list[dict[str, Any]], touches: Touch) -> Checked:
    model = Plan.model_validate({"goal": "g", "steps": steps})
    g = graph.build(model)
    checked = Checked(model, {}, g.order, PlanEffects(estimated_steps=len(model.steps)), deps=g.deps, touches=touches)
    checked.after = run_after(g.order, g.deps, touches)
    return checked


class Barrier:
    """Calls of the `together` tools wait until all of them are in flight."""

    def __init__(self, together: set[str]) -> None:
        self.together = together
        self.arrived: set[str] = set()
        self.all_in = anyio.Event()
        self.in_flight: set[str] = set()
        self.finished: list[str] = []
        self.max_in_flight = 0

    async def __call__(self, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, CallError | None]:
        self.in_flight.add(tool)
        self.max_in_flight = max(self.max_in_flight, len(self.in_flight))
        if tool in self.together:
            self.arrived.add(tool)
            if self.arrived == self.together:
                self.all_in.set()
            await self.all_in.wait()
        await anyio.lowlevel.checkpoint()
        self.in_flight.discard(tool)
        self.finished.append(tool)
        if tool == "fail":
            return None, CallError("conflict", "boom")
        return {"tool": tool}, None


async def _run(checked: Checked, caller: Any, concurrency: int = 4) -> RunState:
    state = RunState("r", [StepOutcome(s.id, s.tool) for s in checked.order])
    with anyio.fail_after(60):  # only a bound on a hang: the barrier, not time, decides the order
        await Runner(_Journal(), caller, concurrency=concurrency).run(checked, state)  # type: ignore[arg-type]
    return state


async def test_independent_steps_run_together_and_dependent_ones_wait() -> None:
    steps = [
        {"id": "a", "tool": "write_a", "args": {}},
        {"id": "b", "tool": "write_b", "args": {}},
        {"id": "c", "tool": "after_a", "dependsOn": ["a"]},
        {"id": "d", "tool": "same_file_as_b"},
    ]
    touches: Touch = {
        "a": frozenset({"A.md"}),
        "b": frozenset({"B.md"}),
        "c": frozenset({"C.md"}),
        "d": frozenset({"B.md"}),
    }
    caller = Barrier({"write_a", "write_b"})  # a and b only finish when both are in flight
    seen: dict[str, list[str]] = {}

    async def watching(tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, CallError | None]:
        seen[tool] = list(caller.finished)  # what had finished when this call started
        return await caller(tool, args)

    state = await _run(_checked(steps, touches), watching)
    assert state.status == "done" and all(o.status == "ok" for o in state.outcomes)
    assert "write_a" in seen["after_a"]  # c waited for its dependency
    assert "write_b" in seen["same_file_as_b"]  # d waited for the step touching the same file
    assert caller.max_in_flight >= 2


async def test_one_at_a_time_when_concurrency_is_one_and_a_stop_starts_nothing_more() -> None:
    steps = [{"id": "a", "tool": "fail"}, {"id": "b", "tool": "write_b"}, {"id": "c", "tool": "write_c"}]
    touches: Touch = {"a": frozenset({"A.md"}), "b": frozenset({"B.md"}), "c": frozenset({"C.md"})}
    caller = Barrier(set())
    state = await _run(_checked(steps, touches), caller, concurrency=1)
    assert caller.max_in_flight == 1 and caller.finished == ["fail"]
    assert [o.status for o in state.outcomes] == ["failed", "not_run", "not_run"] and state.status == "failed"


async def test_a_stop_lets_the_steps_in_flight_finish_and_starts_no_other() -> None:
    steps = [
        {"id": "a", "tool": "fail"},
        {"id": "b", "tool": "write_b"},
        {"id": "c", "tool": "write_c", "dependsOn": ["b"]},
    ]
    touches: Touch = {"a": frozenset({"A.md"}), "b": frozenset({"B.md"}), "c": frozenset({"C.md"})}
    caller = Barrier({"fail", "write_b"})  # a fails only once b is in flight too
    state = await _run(_checked(steps, touches), caller)
    status = {o.id: o.status for o in state.outcomes}
    assert status == {"a": "failed", "b": "ok", "c": "not_run"} and state.status == "failed"


@pytest.mark.parametrize("concurrency", [1, 4])
async def test_skips_follow_dependencies_only(concurrency: int) -> None:
    steps = [
        {"id": "a", "tool": "fail", "onError": "skip"},
        {"id": "b", "tool": "after_a", "dependsOn": ["a"]},
        {"id": "c", "tool": "same_file", "args": {}},
    ]
    touches: Touch = {"a": frozenset({"A.md"}), "b": frozenset({"B.md"}), "c": frozenset({"A.md"})}
    state = await _run(_checked(steps, touches), Barrier(set()), concurrency)
    assert {o.id: o.status for o in state.outcomes} == {"a": "failed", "b": "skipped", "c": "ok"}


def test_the_effects_builder_says_which_files_a_call_touches() -> None:
    from service.plans.effects import EffectsBuilder

    b = EffectsBuilder(lambda rel: rel == "Old.md")
    kw: dict[str, Any] = {"destructive": False, "scopes": ("write:vault",), "step_id": "s"}
    assert b.step("create_note", {"path": "A"}, **kw) == frozenset({"A.md"})
    assert b.step("copy_note", {"path": "Old", "new_path": "B"}, **kw) == frozenset({"Old.md", "B.md"})
    assert b.step("move_note", {"path": "Old", "new_path": "New"}, **kw) is None  # link rewrites elsewhere
    assert b.step("reindex", {}, **kw) is None
    assert b.step("some_future_tool", {"path": "X"}, **kw) is None


def test_run_after_matches_the_pairwise_rule_on_random_plans() -> None:
    import random

    from service.plans.model import Step

    rng = random.Random(7)
    files = ["A.md", "B.md", "F/x.md", "F/G/y.md", "F", "F/G", "C.md"]
    for _ in range(200):
        order = [Step(id=f"s{i}", tool="t") for i in range(rng.randint(1, 12))]
        touches: Touch = {}
        for s in order:
            kind = rng.random()
            if kind < 0.3:
                continue  # a read
            touches[s.id] = None if kind < 0.4 else frozenset(rng.sample(files, rng.randint(0, 2)))
        got = run_after(order, {}, touches)
        for i, later in enumerate(order):
            want = {e.id for e in order[:i] if interferes(e.id, later.id, touches)}
            assert got[later.id] == want, (touches, later.id)
