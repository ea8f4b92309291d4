"""Plans that use their own results: a later step moves, renames, patches, tags or deletes a note
an earlier step of the same plan creates (issue 41 item 1), through execute_plan and back with
undo_last_plan; validate_plan names the step of every problem (item 2) and refuses a too large
foreach before doing any of its work (issue 36 item 12)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, snapshot, started

CREATE = {
    "id": "create",
    "tool": "create_note",
    "args": {"path": "Plan/A.md", "content": "---\ntags: [draft]\n---\n# A\n\n## Part\n\ntext\n"},
}


def _then(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "goal": f"create, then {tool}",
        "steps": [CREATE, {"id": "next", "tool": tool, "args": args, "dependsOn": ["create"]}],
    }


CASES: dict[str, tuple[dict[str, Any], Callable[[Path], bool]]] = {
    "move_note": (
        _then("move_note", {"path": "Plan/A.md", "new_path": "Plan/Archive/A.md"}),
        lambda root: (root / "Plan/Archive/A.md").is_file() and not (root / "Plan/A.md").exists(),
    ),
    "move_note by name": (
        _then("move_note", {"path": "A", "new_path": "Other/A.md"}),
        lambda root: (root / "Other/A.md").is_file() and not (root / "Plan/A.md").exists(),
    ),
    "rename_note": (
        _then("rename_note", {"path": "Plan/A.md", "new_path": "C"}),
        lambda root: (root / "Plan/C.md").is_file() and not (root / "Plan/A.md").exists(),
    ),
    "patch_note": (
        _then("patch_note", {"path": "Plan/A.md", "heading": ["A", "Part"], "content": "patched"}),
        lambda root: "patched" in (root / "Plan/A.md").read_text(),
    ),
    "add_tags": (
        _then("add_tags", {"path": "Plan/A.md", "tags": ["fresh"]}),
        lambda root: "fresh" in (root / "Plan/A.md").read_text(),
    ),
    "set_properties": (
        _then("set_properties", {"path": "Plan/A.md", "properties": {"status": "new"}}),
        lambda root: "status: new" in (root / "Plan/A.md").read_text(),
    ),
    "delete_note": (
        _then("delete_note", {"path": "Plan/A.md"}),
        lambda root: not (root / "Plan/A.md").exists(),
    ),
    "write_note overwrite": (
        _then("write_note", {"path": "Plan/A.md", "content": "replaced\n", "mode": "overwrite"}),
        lambda root: (root / "Plan/A.md").read_text() == "replaced\n",
    ),
    "remove_tags": (
        _then("remove_tags", {"path": "Plan/A.md", "tags": ["draft"]}),
        lambda root: "draft" not in (root / "Plan/A.md").read_text(),
    ),
    "rename_tag": (
        _then("rename_tag", {"old": "draft", "new": "final", "dry_run": False}),
        lambda root: "final" in (root / "Plan/A.md").read_text(),
    ),
    "rewrite_links": (
        _then("rewrite_links", {"old_target": "Gone.md", "new_target": "Plan/A.md", "dry_run": False}),
        lambda root: "[[Plan/A]]" in (root / "Plan/B.md").read_text() or "[[A]]" in (root / "Plan/B.md").read_text(),
    ),
    "copy_note": (
        _then("copy_note", {"path": "Plan/A.md", "new_path": "Copies/A.md"}),
        lambda root: (root / "Copies/A.md").is_file(),
    ),
}


async def _run(vg: Harness, plan: dict[str, Any]) -> dict[str, Any]:
    """validate_plan, then execute_plan (confirmed by a human when it asks), as a client would."""
    checked = await vg.ok("validate_plan", plan=plan)
    assert checked["valid"], checked["problems"]
    first = await vg.call("execute_plan", plan=plan, effects_hash=checked["effects_hash"])
    assert first.structured is not None
    if first.is_error:
        assert first.structured["error"]["code"] == "elicit_required", first.structured
        return await vg.confirmed("execute_plan", plan=plan, effects_hash=checked["effects_hash"])
    return first.structured


@pytest.mark.parametrize("case", sorted(CASES))
async def test_a_later_step_works_on_the_note_an_earlier_step_created(
    make_vault: Callable[..., Path], case: str
) -> None:
    plan, done = CASES[case]
    async with started(make_vault({"Hub.md": "# Hub\n", "Plan/B.md": "see [[Gone]]\n"})) as vg:
        await vg.indexed()
        before = snapshot(vg.root)
        run = await _run(vg, plan)
        assert run["status"] == "done", run
        assert [s["status"] for s in run["steps"]] == ["ok", "ok"], run["steps"]
        assert done(vg.root)
        undone = await vg.confirmed("undo_last_plan")
        assert undone["run_id"] == run["run_id"] and not undone["conflicts"]
        assert snapshot(vg.root) == before


async def test_a_path_the_acl_denies_is_reported_with_the_step_that_touches_it(
    make_vault: Callable[..., Path],
) -> None:
    acl = {"prefix_rules": [{"path": "Private", "write": "deny"}]}
    async with started(make_vault({"A.md": "# A\n"}), acl=acl) as vg:
        plan = {
            "goal": "g",
            "steps": [
                {"id": "open", "tool": "create_note", "args": {"path": "Open/x"}},
                {"id": "closed", "tool": "create_note", "args": {"path": "Private/x"}},
                {
                    "id": "many",
                    "tool": "append_note",
                    "foreach": ["A", "Private/y"],
                    "args": {"path": "$item", "content": "z"},
                },
            ],
        }
        out = await vg.ok("validate_plan", plan=plan)
        assert sorted((p["step"], p["code"]) for p in out["problems"]) == [
            ("closed", "acl_denied"),
            ("many[1]", "acl_denied"),
        ]
        error = await vg.err("execute_plan", "validation_error", plan=plan)
        assert {p["step"] for p in error["details"]["problems"]} == {"closed", "many[1]"}


async def test_a_foreach_past_the_call_limit_is_refused_before_any_of_its_reads(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.plans.check import MAX_CALLS
    from service.tools.sessions.plan_host import PlanHost

    reads: list[str] = []
    real_call = PlanHost.call  # every call a check makes (`read` goes through it too)

    async def counting(self: PlanHost, tool: str, args: dict[str, Any]) -> Any:
        reads.append(tool)
        return await real_call(self, tool, args)

    monkeypatch.setattr(PlanHost, "call", counting)
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        plan = {
            "goal": "read too much",
            "steps": [
                {"id": "one", "tool": "read_note", "args": {"path": "A"}},
                {"id": "all", "tool": "read_note", "foreach": ["A"] * (MAX_CALLS + 1), "args": {"path": "$item"}},
            ],
        }
        out = await vg.ok("validate_plan", plan=plan)
        assert not out["valid"]
        assert [(p["step"], p["code"]) for p in out["problems"]] == [("all", "too_large")]
        assert reads == ["read_note"]  # the first step only: none of the foreach's calls ran


async def test_a_step_whose_content_waits_for_an_earlier_step_has_its_path_checked_and_listed_now(
    make_vault: Callable[..., Path],
) -> None:
    acl = {"prefix_rules": [{"path": "Private", "write": "deny"}]}
    async with started(make_vault({"A.md": "# A\n", "Private/Welcome.md": "# Welcome\n"}), acl=acl) as vg:
        see = "See [[${steps.mk.title}]]."
        plan = {
            "goal": "g",
            "steps": [
                {"id": "mk", "tool": "create_note", "args": {"path": "Inbox/Gamma"}},
                {"id": "ref", "tool": "append_note", "args": {"path": "Private/Welcome", "content": see}},
                {"id": "ok", "tool": "append_note", "args": {"path": "A", "content": see}},
            ],
        }
        out = await vg.ok("validate_plan", plan=plan)
        assert not out["valid"] and [(p["step"], p["code"]) for p in out["problems"]] == [("ref", "acl_denied")]
        before = vg.snapshot()
        error = await vg.err("execute_plan", "validation_error", plan=plan)
        assert {p["step"] for p in error["details"]["problems"]} == {"ref"}
        assert vg.snapshot() == before  # refused before any step ran: no Inbox/Gamma.md
        allowed = {**plan, "steps": [plan["steps"][0], plan["steps"][2]]}
        checked = await vg.ok("validate_plan", plan=allowed)
        assert checked["valid"] and set(checked["effects"]["files_modified"]) == {"A.md"}, checked["effects"]
        assert checked["effects"]["unresolved"] == ["ok"]
