"""validate_plan foresees a create the run refuses as a case twin (E7 s85, found by S1 s85): a
plan whose steps make folders differing only in letter case (`[create_note G/x, create_note
g/n]`, `[create_folder Fold, create_note fold/n]`) was valid, folders_created ["G", "g"], and the
run failed its second step (`already_exists` "'G' already exists: 'g/n.md' differs from it only
in letter case"), leaving G/x.md. Each plan here names its own folders (the one-by-one calls
share one vault). A twin of a folder or note already in the vault, of one an
earlier step made (a folder, a deeper folder, a copy's new path into one), and of one an earlier
note of the same bulk_create_notes makes, is now a problem with the run's code, message, details
and hint; each plan's steps called one by one are refused at that step with that error. A plan
that keeps the case stays valid and runs. The effects no longer promise what the refused call would
make (the twin folder 'g1' in folders_created): that call is one of the failures (E8 s86). A note
moved out of a folder into its case twin while the folder keeps other notes is refused by the check
as by the run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started
from tests.tools.sessions.test_plan_refusals_told import _step, first_refused

VAULT = {"Home.md": "# Home\n", "DD/k.md": "k\n", "Inbox/a.md": "a\n", "Inbox/b.md": "b\n"}

PLANS: dict[str, list[dict[str, Any]]] = {
    "a folder an earlier note made": [
        _step("a", "create_note", path="G1/x", content="x"),
        _step("b", "create_note", path="g1/n", content="n"),
    ],
    "a folder an earlier create_folder made": [
        _step("a", "create_folder", path="Fold2"),
        _step("b", "create_note", path="fold2/n", content="n"),
    ],
    "a folder twin of a made folder": [
        _step("a", "create_folder", path="Fold3"),
        _step("b", "create_folder", path="fold3"),
    ],
    "a deeper folder": [
        _step("a", "create_note", path="A4/B/x", content="x"),
        _step("b", "create_note", path="A4/b/n", content="n"),
    ],
    "a copy into a made folder's twin": [
        _step("a", "create_note", path="G6/x", content="x"),
        _step("b", "copy_note", path="Home.md", new_path="g6/Home.md"),
    ],
    "a folder in the vault": [_step("b", "create_note", path="dd/n", content="n")],
    "a folder in the vault, by create_folder": [_step("b", "create_folder", path="dd/sub")],
    "a note moved into its folder's case twin": [  # Inbox keeps b.md: no folder rename (E8 s86, after b672a3d3)
        _step("m", "move_note", path="Inbox/a.md", new_path="inbox/a.md")
    ],
    "one bulk_create_notes": [
        _step("b", "bulk_create_notes", notes=[{"path": "G10/x", "content": "x"}, {"path": "g10/y", "content": "y"}])
    ],
}  # fmt: skip

SAME_CASE = [
    _step("a", "create_note", path="G/x", content="x"),
    _step("f", "create_folder", path="G/Sub"),
    _step("b", "create_note", path="G/Sub/n", content="n"),
    _step("c", "create_note", path="DD/m", content="m"),
]


async def test_a_case_twin_is_told_as_the_run_refuses_it(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        told: dict[str, dict[str, Any]] = {}
        for name, steps in PLANS.items():
            plan = {"goal": name, "steps": steps}
            checked = await vg.ok("validate_plan", plan=plan)
            assert len(checked["problems"]) == 1, (name, checked["problems"])
            told[name] = checked["problems"][0]
            _promises_no_twin(name, checked["effects"], told[name])
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
            assert error["message"] == problem["message"], (name, problem, error)
        plan = {"goal": "same case", "steps": SAME_CASE}
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["problems"] == [], checked
        ran = await vg.ok("execute_plan", plan=plan)
        assert ran["status"] == "done", ran
    assert told["a folder an earlier note made"]["details"] == {"path": "G1", "new_path": "g1/n.md"}


def _promises_no_twin(name: str, effects: dict[str, Any], problem: dict[str, Any]) -> None:
    """The effects list no file, move or folder the refused call would make, so none twins another
    or one in the vault (E8 s86: folders_created listed 'g1' beside 'G1'); the call is a failure."""
    made = [*effects["files_created"], *effects["folders_created"], *(m["to"] for m in effects["files_moved"])]
    spelled: dict[str, set[str]] = {}
    for rel in [*made, *VAULT]:
        segments = rel.split("/")
        for depth in range(1, len(segments) + 1):
            prefix = "/".join(segments[:depth])
            spelled.setdefault(prefix.lower(), set()).add(prefix)
    assert all(len(names) == 1 for names in spelled.values()), (name, effects)
    failures = [(f["step"], f["code"]) for f in effects["failures"]]
    assert failures == [(problem["step"], "already_exists")], (name, effects)
