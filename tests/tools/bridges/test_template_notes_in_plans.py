"""A note execute_template makes inside a plan is one of the plan's files: later steps find it by
its path, by a reference to the step's result and by its bare name, the check and the run agree
on it, the confirmation a human approves names it, and undo_last_plan removes it (with the folder
Templater made for it). Before, the check knew no file of execute_template's: a plan that patched
or moved the new note was refused (`note_not_found`), and the undo left the note behind.

Through the whole dispatch chain against the Local REST API stand-in (tests/tools/bridges/standin.py),
which makes Templater's notes in the vault as Obsidian names them (`vault_root`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, snapshot, started
from tests.tools.bridges.standin import Obsidian, make_cert, serving
from tests.tools.bridges.test_bridge_refusals_before_running import plan, vault
from tests.tools.bridges.test_bridge_tools import ENV, FILES, api_key

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too

MAKE = {"tool": "execute_template", "args": {"template": "Meeting", "folder": "Projects/2026", "filename": "Kickoff"}}


def steps(made: str, *, by: str) -> dict[str, Any]:
    """execute_template, a patch of the new note (`by`: how it is named), a move of it by its bare name."""
    return plan(
        MAKE,
        {"tool": "patch_note", "args": {"path": by, "heading": "Meeting", "content": "- agenda", "position": "append"}},
        {"tool": "move_note", "args": {"path": made.rsplit("/", 1)[-1].removesuffix(".md"), "new_path": "Archive/"}},
    )


async def _check_and_run(vg: Harness, body: dict[str, Any], made: str) -> dict[str, Any]:
    checked = await vg.ok("validate_plan", plan=body)
    assert checked["valid"], checked["problems"]
    effects = checked["effects"]
    name = made.rsplit("/", 1)[-1]
    assert effects["files_created"] == [f"Archive/{name}"], effects  # made, then moved
    assert [(m["from"], m["to"]) for m in effects["files_moved"]] == [(made, f"Archive/{name}")], effects
    assert "Projects/2026" in effects["folders_created"] and "Archive" in effects["folders_created"], effects
    assert effects["failures"] == [], effects
    asked = (await vg.err("execute_plan", "elicit_required", plan=body))["details"]["preview"]
    assert f"Archive/{name}" in asked and made in asked, asked  # what the human approves names the note
    run = await vg.confirmed("execute_plan", plan=body)
    assert run["status"] == "done", run
    return effects


async def test_a_plan_patches_and_moves_the_note_its_template_step_made_and_undo_removes_it(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        obsidian.vault_root = vg.root  # Templater makes its notes in the vault, as Obsidian does
        before = snapshot(vg.root)
        await _check_and_run(
            vg, steps("Projects/2026/Kickoff.md", by="Projects/2026/Kickoff.md"), "Projects/2026/Kickoff.md"
        )
        assert vg.read("Archive/Kickoff.md") == "# Meeting\n- agenda\n"
        assert not (vg.root / "Projects/2026/Kickoff.md").exists()
        assert len(obsidian.created) == 1
        preview = await vg.ok("undo_last_plan", dry_run=True)
        assert preview["conflicts"] == [], preview
        assert {"Archive/Kickoff.md", "Projects/2026/Kickoff.md", "Projects/2026"} <= set(preview["restored"]), preview
        await vg.confirmed("undo_last_plan")
        assert snapshot(vg.root) == before  # the note, its patch, its move and the folder made for it: gone
    assert len(obsidian.created) == 1  # the undo asked Obsidian nothing


async def test_a_later_step_names_the_new_note_by_the_template_steps_result(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        obsidian.vault_root = vg.root
        before = snapshot(vg.root)
        await _check_and_run(vg, steps("Projects/2026/Kickoff.md", by="$steps.s0.path"), "Projects/2026/Kickoff.md")
        assert vg.read("Archive/Kickoff.md") == "# Meeting\n- agenda\n"
        await vg.confirmed("undo_last_plan")
        assert snapshot(vg.root) == before


async def test_a_taken_name_is_foreseen_as_obsidian_numbers_it_and_the_kept_note_survives_the_undo(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        obsidian.vault_root = vg.root
        await vg.ok("create_note", path="Projects/2026/Kickoff.md", content="# Kept\n")
        before = snapshot(vg.root)
        made = "Projects/2026/Kickoff 1.md"  # getAvailablePath: the note there is left as it is
        body = steps(made, by="Projects/2026/Kickoff 1")
        checked = await vg.ok("validate_plan", plan=body)
        assert checked["valid"], checked["problems"]
        assert checked["effects"]["files_created"] == ["Archive/Kickoff 1.md"], checked["effects"]
        assert "Projects/2026" not in checked["effects"]["folders_created"], checked["effects"]
        run = await vg.confirmed("execute_plan", plan=body)
        assert run["status"] == "done", run
        assert vg.read("Archive/Kickoff 1.md") == "# Meeting\n- agenda\n"
        assert vg.read("Projects/2026/Kickoff.md") == "# Kept\n"
        await vg.confirmed("undo_last_plan")
        assert snapshot(vg.root) == before


async def test_the_check_and_the_run_agree_when_the_template_step_must_run_before_the_move(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """The steps as one by one calls: the move of the new note by its bare name, right after the
    template made it, finds it (the index knows the note Obsidian made before the next call)."""
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        obsidian.vault_root = vg.root
        made = await vg.confirmed("execute_template", **MAKE["args"])
        assert made["path"] == "Projects/2026/Kickoff.md"
        moved = await vg.confirmed("move_note", path="Kickoff", new_path="Archive/")
        assert (moved["old_path"], moved["path"]) == ("Projects/2026/Kickoff.md", "Archive/Kickoff.md"), moved


async def test_a_note_made_where_the_caller_may_not_see_it_is_refused_by_the_check_as_by_the_call(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        obsidian.vault_root = vg.root
        body = plan(
            {"tool": "execute_template", "args": {"template": "Meeting", "folder": "Projects", "filename": "N"}},
            {"tool": "move_note", "args": {"path": "Projects/N.md", "new_path": "Private/N.md"}},
        )
        checked = await vg.ok("validate_plan", plan=body)
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("s1", "acl_denied")], checked
    assert obsidian.created == []


async def test_a_dry_run_preview_names_the_note_and_folder_the_call_then_makes(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    files = {**FILES, "Projects/Kickoff.md": "# Kept\n"}
    obsidian = Obsidian()
    cert = make_cert(tmp_path / "tls")
    root, dry_root = make_vault(files), make_vault(files)
    async with serving(obsidian, cert) as url:
        bridge = {"url": url, "api_key_env": ENV, "probe_at_start": False, "cert_fingerprint": cert.fingerprint}
        vaults = [
            {"id": "main", "path": root, "bridge": bridge},
            {"id": "dry", "path": dry_root, "bridge": bridge, "write_mode": "dry-run"},
        ]
        async with started(root, vaults=vaults) as vg:
            obsidian.vault_root = root
            for args in ({"folder": "Projects", "filename": "Kickoff"}, {"folder": "Log/2026", "filename": "Q1"}):
                preview = await vg.ok("execute_template", template="Meeting", vault="dry", **args)
                effects = preview["effects"]
                before = snapshot(root)
                made = await vg.confirmed("execute_template", template="Meeting", vault="main", **args)
                after = snapshot(root)
                assert effects["files_created"] == [made["path"]], (effects, made)
                assert f"creates the note {made['path']}" in preview["summary"], preview
                new = set(after) - set(before)
                assert new == {made["path"], *(f"{folder}/" for folder in effects["folders_created"])}, (new, effects)
                assert effects["files_modified"] == effects["files_deleted"] == [] and set(before) <= set(after)
    assert not (dry_root / "Projects/Kickoff 1.md").exists() and not (dry_root / "Log").exists()


async def test_undo_removes_the_note_and_folder_a_plans_template_step_made(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        obsidian.vault_root = vg.root
        before = snapshot(vg.root)
        run = await vg.confirmed("execute_plan", plan=plan(MAKE))
        assert run["status"] == "done" and vg.read("Projects/2026/Kickoff.md") == "# Meeting\n", run
        preview = await vg.ok("undo_last_plan", dry_run=True)
        assert preview["restored"] == ["Projects/2026/Kickoff.md", "Projects/2026"], preview
        assert [i["step"] for i in preview["not_undone"]] == ["s0"]  # its scripts' other effects are not journaled
        await vg.confirmed("undo_last_plan")
        assert snapshot(vg.root) == before


async def test_a_case_twin_of_a_note_there_is_refused_by_the_call_the_preview_and_the_check_alike(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        obsidian.vault_root = vg.root
        twin = {"template": "Meeting", "folder": "projects", "filename": "N"}  # 'Projects' is there
        err = await vg.err("execute_template", "already_exists", **twin)
        assert err["details"] == {"path": "Projects", "new_path": "projects/N.md"}, err
        checked = await vg.ok("validate_plan", plan=plan({"tool": "execute_template", "args": twin}))
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("s0", "already_exists")], checked
    assert obsidian.sent == [] and obsidian.created == []


async def test_a_name_known_only_at_run_time_leaves_the_note_to_the_run(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """A filename from a field of an earlier write's result (its title: the run's) names no
    'Untitled.md' in the check: the step and the later step naming its note are unresolved, and
    the run makes and moves the note the name gives."""
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        obsidian.vault_root = vg.root
        before = snapshot(vg.root)
        body = plan(
            {"tool": "create_note", "args": {"path": "Inbox/Retro.md", "content": "# Retro\n"}},
            {
                "tool": "execute_template",
                "args": {"template": "Meeting", "folder": "Projects", "filename": "$steps.s0.title"},
            },
            {"tool": "move_note", "args": {"path": "Projects/Retro", "new_path": "Archive/"}},
        )
        checked = await vg.ok("validate_plan", plan=body)
        assert checked["valid"], checked["problems"]
        effects = checked["effects"]
        assert effects["files_created"] == ["Inbox/Retro.md"] and {"s1", "s2"} <= set(effects["unresolved"]), effects
        run = await vg.confirmed("execute_plan", plan=body)
        assert run["status"] == "done", run
        assert vg.read("Archive/Retro.md") == "# Meeting\n" and not (vg.root / "Projects/Untitled.md").exists()
        await vg.confirmed("undo_last_plan")
        assert snapshot(vg.root) == before
