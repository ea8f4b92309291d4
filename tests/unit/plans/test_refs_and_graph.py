"""References, the dependency graph and the runner's failure policies, without a server."""

from __future__ import annotations

from typing import Any

import pytest

from service.plans import graph
from service.plans.check import Checked, bind_params
from service.plans.model import Param, Plan
from service.plans.refs import LATE, RefError, Scope, Unresolved, references, resolve, select
from service.plans.runner import CallError, Runner, RunState, StepOutcome
from service.plans.summary import PlanEffects

RESULT = {"items": [{"path": "a.md", "tags": ["x"]}, {"path": "b.md", "tags": []}], "total": 2}


def test_paths_select_fields_elements_and_every_element() -> None:
    assert select(RESULT, ".items[*].path", "w") == ["a.md", "b.md"]
    assert select(RESULT, ".items[1].path", "w") == "b.md"
    assert select(RESULT, ".total", "w") == 2
    with pytest.raises(RefError):
        select(RESULT, ".items[5]", "w")
    with pytest.raises(RefError):
        select(RESULT, ".nope", "w")


def test_whole_values_keep_their_type_and_inline_ones_become_text() -> None:
    scope = Scope(params={"n": 3, "tag": "t"}, steps={"find": RESULT}, item=("note", {"path": "c.md"}))
    assert resolve("$steps.find.items[*].path", scope) == ["a.md", "b.md"]
    assert resolve("${n}", scope) == 3
    assert resolve("$note.path", scope) == "c.md"
    assert resolve({"p": "Archive/${note.path}", "l": ["${tag}-${n}"]}, scope) == {"p": "Archive/c.md", "l": ["t-3"]}
    assert resolve("total: ${steps.find.total}", scope) == "total: 2"
    assert resolve("costs $5", scope) == "costs $5"  # a dollar sign that is no reference
    with pytest.raises(Unresolved):
        resolve("$steps.later.path", scope)
    with pytest.raises(Unresolved):
        resolve("${late}", Scope(params={"late": LATE}))
    with pytest.raises(RefError):
        resolve("${missing}", scope)


def test_a_mutating_steps_known_fields_resolve_and_the_rest_waits_for_the_run() -> None:
    scope = Scope(known={"mk": {"path": "Inbox/Hub.md"}})
    assert resolve("$steps.mk.path", scope) == "Inbox/Hub.md"
    assert resolve("moved from ${steps.mk.path}", scope) == "moved from Inbox/Hub.md"
    for unknown in ("$steps.mk", "$steps.mk.created", "$steps.other.path"):
        with pytest.raises(Unresolved):
            resolve(unknown, scope)
    with pytest.raises(RefError):  # a known value's path that does not fit it
        resolve("$steps.mk.path[0]", scope)


def test_a_foreach_or_bulk_steps_known_paths_resolve_as_the_run_gives_them() -> None:
    """A foreach step's result is the list of its calls'; a bulk_create_notes' paths are items[*].path."""
    known = {"each": [{"path": "A.md"}, {"path": "B.md"}], "bulk": {"items": [{"path": "X.md"}]}}
    scope = Scope(known={**known, "part": [{"path": "A.md"}, None]})
    assert resolve("$steps.each[*].path", scope) == ["A.md", "B.md"]
    assert resolve("$steps.each[1].path", scope) == "B.md"
    assert resolve("$steps.bulk.items[*].path", scope) == ["X.md"]
    assert resolve("${steps.bulk.items[0].path}!", scope) == "X.md!"
    for unknown in ("$steps.part[*].path", "$steps.part[1].path", "$steps.each[*]", "$steps.bulk.items"):
        with pytest.raises(Unresolved):
            resolve(unknown, scope)
    with pytest.raises(Unresolved):  # a field the run tells
        resolve("$steps.each[0].etag", scope)
    for wrong in ("$steps.each.path", "$steps.each[2].path", "$steps.bulk.items.path"):  # as the run answers
        with pytest.raises(RefError):
            resolve(wrong, scope)


def test_references_and_the_graph_order_and_cycles() -> None:
    assert {r.name for r in references({"a": "$steps.x.p", "b": ["${steps.y.q} ${p}"]})} == {"x", "y", "p"}
    plan = Plan.model_validate(
        {
            "goal": "g",
            "steps": [
                {"id": "b", "tool": "t", "args": {"x": "$steps.a.v"}},
                {"id": "a", "tool": "t"},
                {"id": "c", "tool": "t", "dependsOn": ["b"], "captureAs": "see"},
                {"id": "d", "tool": "t", "args": {"x": "$steps.see.v"}},
            ],
        }
    )
    g = graph.build(plan)
    assert [s.id for s in g.order] == ["a", "b", "c", "d"] and not g.problems
    loop = Plan.model_validate(
        {
            "goal": "g",
            "steps": [{"id": "a", "tool": "t", "dependsOn": ["b"]}, {"id": "b", "tool": "t", "dependsOn": ["a"]}],
        }
    )
    assert [code for _, code, _ in graph.build(loop).problems] == ["cycle"]


def test_parameters_are_type_checked() -> None:
    declared = [Param(name="n", type="integer"), Param(name="s", default="d")]
    values, problems = bind_params(declared, {"n": True, "x": 1})
    assert {p.code for p in problems} == {"bad_param", "unknown_param"} and values["s"] == "d"
    values, problems = bind_params(declared, {}, late=True)
    assert not problems and values["n"] is LATE


class _Journal:
    """Enough of the journal for the runner (no database)."""

    def recorder(self, run_id: str) -> Any:
        class _R:
            step_id = ""

            def for_step(self, step_id: str) -> Any:
                return self

        return _R()

    async def close_run(self, *args: Any) -> None:
        return None

    async def checkpoint(self, *args: Any) -> None:
        return None


async def _run(plan: dict[str, Any], fail: dict[str, list[str]]) -> tuple[RunState, list[str]]:
    model = Plan.model_validate(plan)
    g = graph.build(model)
    checked = Checked(model, {}, g.order, PlanEffects(estimated_steps=len(model.steps)), deps=g.deps)
    calls: list[str] = []

    async def caller(tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, CallError | None]:
        calls.append(tool)
        codes = fail.get(tool, [])
        if codes:
            code = codes.pop(0)
            return None, CallError(code, "boom", retryable=code == "index_unavailable")
        return {"ok": True}, None

    state = RunState("r", [StepOutcome(s.id, s.tool) for s in g.order])
    await Runner(_Journal(), caller).run(checked, state)  # type: ignore[arg-type]
    return state, calls


async def test_on_error_stop_skip_continue_and_retry() -> None:
    steps = [
        {"id": "a", "tool": "fails", "onError": "skip"},
        {"id": "b", "tool": "after_a", "dependsOn": ["a"]},
        {"id": "c", "tool": "flaky", "retry": {"attempts": 3, "backoffMs": 0}},
        {"id": "d", "tool": "fails2", "onError": "continue"},
        {"id": "e", "tool": "after_d", "dependsOn": ["d"]},
        {"id": "f", "tool": "fails3"},
        {"id": "g", "tool": "never"},
    ]
    fail = {
        "fails": ["conflict"],
        "flaky": ["index_unavailable", "index_unavailable"],
        "fails2": ["x"],
        "fails3": ["y"],
    }
    state, calls = await _run({"goal": "g", "steps": steps}, fail)
    status = {o.id: o.status for o in state.outcomes}
    assert status == {"a": "failed", "b": "skipped", "c": "ok", "d": "failed", "e": "ok", "f": "failed", "g": "not_run"}
    assert calls == ["fails", "flaky", "flaky", "flaky", "fails2", "after_d", "fails3"]
    assert state.status == "failed"
