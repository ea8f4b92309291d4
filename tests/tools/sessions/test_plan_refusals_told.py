"""validate_plan tells a refusal of the note's text it foresees as the run tells it (E4 s84, after
E3 s83's 4dd522b3 for the encoding's): a patch of a heading or block the note lacks (as the earlier
steps leave it: a note a step made), a task line that holds no task or another task, an inline tag
under a missing heading were told by their code alone ("whose text as the earlier steps leave it
refuses the edit"); the problem now carries the error the call answers there: its message (the
headings there are...), details and hint. A tool's static check (a patch naming no target, a
bridge tool without its bridge) gave the message alone, a read-only step the check runs that
fails now only its code ("read_note fails now: note_not_found"); their details and hint are
there too. Each plan's steps are then called one by one: the first refused is the step
validate_plan named, with that error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

NOTE = "# Top\n\n## Alpha\n\ntext\n\n- [ ] do it\nplain line\n"


def _step(step: str, tool: str, **args: Any) -> dict[str, Any]:
    return {"id": step, "tool": tool, "args": args}


PLANS: dict[str, list[dict[str, Any]]] = {
    "a heading the note lacks": [_step("p", "patch_note", path="N.md", heading="Nope", content="x")],
    "a nested heading the note lacks": [_step("p", "patch_note", path="N.md", heading=["Top", "Beta"], content="x")],
    "a block the note lacks": [_step("p", "patch_note", path="N.md", block="zz", content="x")],
    "a heading the note an earlier step made lacks": [
        _step("c", "create_note", path="C.md", content="# One\n\nhi\n"),
        _step("p", "patch_note", path="$steps.c.path", heading="Two", content="x"),
    ],
    "a line holding no task": [
        _step("p", "set_task_status", path="N.md", line=8, expected_text="plain line", status="x")
    ],
    "a line holding another task": [
        _step("p", "set_task_status", path="N.md", line=7, expected_text="do that", status="x")
    ],
    "an inline tag under a missing heading": [
        _step("p", "add_tags", path="N.md", tags=["t"], inline=True, heading="Nope")
    ],
    # a tool's static check (`refusals.refusal`): its details and hint too, not only its message
    "a patch naming no target": [_step("p", "patch_note", path="N.md", content="x")],
    "a bridge tool without its bridge": [_step("p", "execute_command", command_id="editor:save-file")],
    "a read of a note not there": [_step("p", "read_note", path="Nowhere.md")],  # run by the check
}  # fmt: skip


async def first_refused(vg: Harness, steps: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """The step the calls refuse when made one by one (earlier results as `$steps.<id>.path`), and its error."""
    made: dict[str, Any] = {}
    for step in steps:
        args = {k: made.get(v.split(".")[1], {}).get("path") if str(v).startswith("$steps.") else v
                for k, v in step["args"].items()}  # fmt: skip
        out = await vg.call(step["tool"], **args)
        if out.is_error:
            return step["id"], out.structured["error"]
        made[step["id"]] = out.structured
    return None


def assert_told(problem: dict[str, Any], step: str, error: dict[str, Any]) -> None:
    """The problem is the run's error for that step: its code, details and hint, its message inside."""
    assert (problem["step"], problem["code"]) == (step, error["code"]), (problem, error)
    assert problem["details"] == error["details"] and problem["hint"] == error["hint"], (problem, error)
    assert error["message"] in problem["message"], (problem, error)


async def test_validate_plan_tells_a_refusal_of_the_text_as_the_run(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"N.md": NOTE})) as vg:
        await vg.indexed()
        start = vg.snapshot()
        told: dict[str, dict[str, Any]] = {}
        for name, steps in PLANS.items():
            plan = {"goal": name, "steps": steps}
            checked = await vg.ok("validate_plan", plan=plan)
            [told[name]] = checked["problems"]
            refused = await vg.err("execute_plan", "validation_error", plan=plan)
            assert refused["details"]["problems"] == checked["problems"], refused
        assert vg.snapshot() == start  # nothing ran
        for name, steps in PLANS.items():
            ran = await first_refused(vg, steps)
            assert ran is not None, name
            assert_told(told[name], *ran)
        assert "'Top', 'Alpha'" in told["a heading the note lacks"]["message"]  # the headings there are
        assert told["a heading the note an earlier step made lacks"]["details"]["headings"] == ["One"]
        assert [told[n]["details"]["reason"] for n in ("a line holding no task", "a line holding another task")] == [
            "not_a_task",
            "task_changed",
        ]
        assert "N.md" in told["a block the note lacks"]["message"]  # the note, where the run's words do not name it
        assert told["a block the note lacks"]["message"].endswith("the call fails and the plan stops")
        assert told["a bridge tool without its bridge"]["code"] == "plugin_missing"


FRONTMATTER: list[tuple[str, dict[str, Any]]] = [
    ("add_tags", {"path": "Latin.md", "tags": ["🎉"]}),  # no tag: refused whatever the note
    ("add_tags", {"path": "Latin.md", "tags": ["日本"]}),  # a tag cp1252 cannot hold: unrepresentable
    ("remove_tags", {"path": "N.md", "tags": ["🎉"]}),
    ("set_properties", {"path": "N.md", "properties": {" ": 1}}),  # a property name Obsidian takes not
    ("prepend_note", {"path": "Latin.md", "content": "🎉 "}),  # its encoding's refusal: not asked before either
    # asked (E4 s84), but the plan's effects wrote the note all the same: valid (E5 s84)
    ("write_note", {"path": "Latin.md", "content": "🎉 ", "mode": "append"}),
    ("append_note", {"path": "Latin.md", "content": "🎉 ", "create_if_missing": True}),
    ("replace_text", {"path": "Latin", "find": "Café", "replace": "🎉", "dry_run": False}),  # never asked
    ("replace_text", {"path": "Latin.md", "find": "Café", "replace": "🎉"}),  # its dry run refuses it too
]


async def test_a_frontmatter_edit_s_own_refusal_is_foreseen_and_previewed_as_the_run(
    make_vault: Callable[..., Path],
) -> None:
    """A property or tag edit of the frontmatter whose arguments the run refuses whatever the note
    (an emoji is no tag, a blank property name): validate_plan said valid and a dry-run vault's
    preview promised the change, since only the encoding's refusal of such an edit was asked; now
    both answer the run's error. A tag the note's encoding lacks was already (E3 s83): kept here. A
    prepend_note of an emoji into a cp1252 note was not asked at all (valid, previewed as a change);
    nor was replace_text's of one note, and a write_note append's refusal was found but the effects
    wrote the note all the same (validate_plan said valid; the dry-run vault refused both already)."""
    files = {"N.md": NOTE, "Latin.md": "# Café\r\n".encode("cp1252")}
    ran: list[dict[str, Any]] = []
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        for tool, args in FRONTMATTER:
            checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [_step("t", tool, **args)]})
            ran.append(await vg.err(tool, "validation_error", **args))
            [problem] = checked["problems"]
            assert_told(problem, "t", ran[-1])
        assert vg.snapshot() == start
    reasons = [None, "unrepresentable", None, "invalid_property_name", *["unrepresentable"] * 5]
    assert [r["details"].get("reason") for r in ran] == reasons
    root = make_vault(files)
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        await vg.indexed()
        start = vg.snapshot()
        for (tool, args), error in zip(FRONTMATTER, ran, strict=True):
            assert await vg.err(tool, "validation_error", **args) == error, (tool, args)
        assert vg.snapshot() == start
