"""validate_plan tells a path or name problem as the run answers it (E6 s85): a path outside the
vault or with a character no path takes (`path_invalid`), a name the vault refuses to create, a
path the ACL denies and a drop box's note (`acl_denied`) gave a message only, the run's words behind
the path; the problem now carries the run's details (the reason, the ACL rule) and hint, its message
the run's. Each plan's steps are then called one by one: the first refused is the step validate_plan
named, with that error, in a plan whose later step names what an earlier made too. So does an edit of
a note not in the vault in a plan whose earlier steps change no note: `note_not_found` with the
closest names, where it said "append_note of Hom.md, no note there"; a patch_note of a section of
such a note names the note ('Nowhere.md', not 'Nowhere#Goals.md'), and a section given to a tool
working on the whole note is its validation_error with details and hint (E8 s86)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started
from tests.tools.sessions.test_plan_refusals_told import _step, first_refused

ACL = {"prefix_rules": [{"path": "Closed", "write": "deny"}, {"path": "Box", "read": "deny", "write": "allow"}]}
VAULT = {"Home.md": "# Home\n", "Box/Old.md": "# Old\n", "Closed/C.md": "# C\n"}

PLANS: dict[str, list[dict[str, Any]]] = {
    "a path outside the vault": [_step("c", "create_note", path="../escape", content="x")],
    "an absolute path": [_step("c", "create_note", path="/abs/x", content="x")],
    "a name the vault refuses": [_step("c", "create_note", path="P/a[b]", content="x")],
    "a device name": [_step("c", "create_note", path="Nul", content="x")],
    "a folder the ACL denies": [_step("c", "create_note", path="Closed/N", content="x")],
    "a drop box's note": [_step("a", "append_note", path="Box/Old.md", content="more")],
    "a note not there": [_step("a", "append_note", path="Hom", content="x")],  # closest: Home
    "a note not there, its tags": [_step("t", "add_tags", path="Projects/Nowhere", tags=["t"])],
    "a section of a note not there": [_step("p", "patch_note", path="Projects/Nowhere#Goals", content="x")],  # E8 s86
    "a section given to a whole-note tool": [_step("t", "add_tags", path="Home#Goals", tags=["t"])],  # E8 s86
    "a move of a made note into a denied folder": [
        _step("c", "create_note", path="Made", content="# Made\n"),
        _step("m", "move_note", path="$steps.c.path", new_path="Closed/"),
    ],
}  # fmt: skip


async def test_a_path_problem_is_told_as_the_run_answers_it(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), acl=ACL) as vg:
        await vg.indexed()
        start = vg.snapshot()
        told: dict[str, dict[str, Any]] = {}
        for name, steps in PLANS.items():
            plan = {"goal": name, "steps": steps}
            checked = await vg.ok("validate_plan", plan=plan)
            assert len(checked["problems"]) == 1, (name, checked["problems"])
            told[name] = checked["problems"][0]
            refused = await vg.err("execute_plan", "validation_error", plan=plan)
            assert refused["details"]["problems"] == checked["problems"], refused
        assert vg.snapshot() == start  # nothing ran
        for name, steps in PLANS.items():
            ran = await first_refused(vg, steps)
            assert ran is not None, name
            step, error = ran
            problem = told[name]
            assert (problem["step"], problem["code"]) == (step, error["code"]), (name, problem, error)
            assert (problem["details"], problem["hint"]) == (error["details"], error["hint"]), (name, problem, error)
            assert error["message"] in problem["message"], (name, problem, error)
    assert told["a folder the ACL denies"]["details"]["rule"]
    assert told["a note not there"]["details"]["suggestions"] == ["Home.md"], told["a note not there"]
    assert told["a section of a note not there"]["details"]["path"] == "Projects/Nowhere.md"  # not 'Nowhere#Goals.md'
    assert told["a section given to a whole-note tool"]["details"]["reason"] == "section_not_supported"
