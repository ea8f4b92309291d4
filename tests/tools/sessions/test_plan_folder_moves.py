"""A plan whose later steps work on what an earlier step's folder move left: validate_plan, the
confirmation a plan asks up front and the effects a human approves see the folder's notes at their
new paths and none at the old ones, as the run then finds them. Before, the check took the folder
for a note (`Proj` -> `Proj.md`): a note recreated at an old path was refused as `already_exists`,
a create onto a moved note was passed as valid, and an overwrite of a moved note was previewed as
a create and not asked up front (the run moved the folder, then stopped at the overwrite's own
`elicit_required`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

VAULT = {
    "Hub.md": "# Hub\n\n- [[Proj/A]]\n",
    "Proj/A.md": "# A\n\nprecious text\n",
    "Proj/B.md": "# B\n",
}


def _plan(*later: dict[str, Any], tool: str = "move_note", new_path: str = "Archive/Proj") -> dict[str, Any]:
    move = {"id": "mv", "tool": tool, "args": {"path": "Proj", "new_path": new_path}}
    return {"goal": "folder", "steps": [move, *({**s, "dependsOn": ["mv"]} for s in later)]}


async def test_an_overwrite_of_a_note_a_folder_rename_moved_is_asked_up_front(make_vault: Callable[..., Path]) -> None:
    args = {"path": "Projects/A", "mode": "overwrite", "content": "new\n"}
    overwrite = {"id": "ow", "tool": "write_note", "args": args}
    plan = _plan(overwrite, tool="rename_note", new_path="Projects")
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        effects = checked["effects"]
        assert effects["files_modified"] == ["Projects/A.md"] and effects["files_created"] == []
        before = vg.snapshot()
        asked = await vg.err("execute_plan", "elicit_required", plan=plan)  # once, before anything moves
        assert "modify (1): Projects/A.md" in asked["details"]["preview"]
        assert vg.snapshot() == before
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert vg.read("Projects/A.md") == "new\n" and not (vg.root / "Proj").exists()


async def test_a_note_recreated_at_a_moved_notes_old_path_is_a_create(make_vault: Callable[..., Path]) -> None:
    stub = {"id": "stub", "tool": "create_note", "args": {"path": "Proj/A", "content": "Now [[Projects/A]]\n"}}
    plan = _plan(stub, tool="rename_note", new_path="Projects")
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        assert checked["effects"]["files_created"] == ["Proj/A.md"] and checked["effects"]["failures"] == []
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert vg.read("Proj/A.md") == "Now [[Projects/A]]\n"
        assert vg.read("Projects/A.md") == "# A\n\nprecious text\n"


async def test_an_old_path_that_ends_a_moved_notes_new_one_names_that_note(make_vault: Callable[..., Path]) -> None:
    """`Proj/A` after `Proj` moved to `Archive/Proj` is `Archive/Proj/A.md`, as a wikilink finds
    it: the create is foreseen refused there, as the run refuses it."""
    stub = {"id": "stub", "tool": "create_note", "args": {"path": "Proj/A", "content": "x"}}
    plan = _plan(stub)
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        [failure] = checked["effects"]["failures"]
        assert (failure["step"], failure["code"], failure["path"]) == ("stub", "already_exists", "Archive/Proj/A.md")
        # the run, with the check's refusal of the step lifted (onError continue), meets the same
        run = await vg.confirmed("execute_plan", plan=_plan({**stub, "onError": "continue"}))
        [error] = run["steps"][1]["errors"]
        assert error["code"] == "already_exists" and "Archive/Proj/A.md" in error["message"]


async def test_a_create_onto_a_note_the_folder_move_brought_is_foreseen(make_vault: Callable[..., Path]) -> None:
    clash = {"id": "mk", "tool": "create_note", "args": {"path": "Archive/Proj/B", "content": "x"}}
    plan = _plan(clash)
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"]
        [failure] = checked["effects"]["failures"]
        assert (failure["step"], failure["code"], failure["path"]) == ("mk", "already_exists", "Archive/Proj/B.md")
        before = vg.snapshot()
        await vg.err("execute_plan", "validation_error", plan=plan)  # refused whole: nothing moved
        assert vg.snapshot() == before


async def test_a_folder_move_takes_along_the_notes_earlier_steps_put_in_it(make_vault: Callable[..., Path]) -> None:
    """A note an earlier step moved into the folder moves with it (its dry run, on the vault as
    it is now, does not list it), and one an earlier step deleted from it does not: the
    confirmation lists every file the run changes."""
    steps = [
        {"id": "in", "tool": "move_note", "args": {"path": "Proj/A", "new_path": "Proj/Sub/A"}},
        {"id": "out", "tool": "delete_note", "args": {"path": "Proj/Sub/C"}},
        {"id": "mv", "tool": "rename_note", "args": {"path": "Proj/Sub", "new_path": "Deep"}, "dependsOn": ["in"]},
        {"id": "ap", "tool": "append_note", "args": {"path": "Proj/Deep/A", "content": "more\n"}, "dependsOn": ["mv"]},
    ]
    plan = {"goal": "regroup", "steps": steps}
    async with started(make_vault({**VAULT, "Proj/Sub/C.md": "# C\n", "Proj/Sub/D.md": "# D\n"})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        effects = checked["effects"]
        moved = effects["files_moved"][1]
        assert moved["folder"] and moved["moved_files"] == sorted(
            ["Proj/Sub/A.md", "Proj/Deep/A.md", "Proj/Sub/D.md", "Proj/Deep/D.md"]
        )
        assert "Proj/Deep/A.md" in effects["files_modified"] and "Proj/Deep/A.md" not in effects["files_created"]
        asked = await vg.err("execute_plan", "elicit_required", plan=plan)
        before = vg.snapshot()
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done", run
        after = vg.snapshot()
        changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k) and not k.endswith("/")}
        vault = vg.root.name
        changed = {k[len(vault) + 1 :] for k in changed if k.startswith(f"{vault}/") and "/.trash/" not in f"/{k}"}
        assert changed <= set(asked["details"]["files"]), sorted(changed - set(asked["details"]["files"]))
        assert vg.read("Proj/Deep/A.md").endswith("more\n") and not (vg.root / "Proj/Deep/C.md").exists()


async def test_a_folder_rename_after_an_edit_inside_it_asks_no_more_than_alone(make_vault: Callable[..., Path]) -> None:
    """The folder's files are what later steps meet; the rename itself is judged as the direct
    call is (a rename in place asks no one), also after an earlier step edited a note in it."""
    steps = [
        {"id": "ap", "tool": "append_note", "args": {"path": "Proj/A", "content": "more\n"}},
        {"id": "mv", "tool": "rename_note", "args": {"path": "Proj", "new_path": "Projects"}, "dependsOn": ["ap"]},
    ]
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        run = await vg.ok("execute_plan", plan={"goal": "edit, then rename", "steps": steps})
        assert run["status"] == "done", run
        assert vg.read("Projects/A.md").endswith("more\n")


async def test_a_folder_the_plan_makes_is_moved_as_a_folder(make_vault: Callable[..., Path]) -> None:
    """A folder no vault holds yet, made by the plan's creates, then moved: the check foresees
    a folder move taking those notes along (a later step naming one by its bare name edits it
    there), and the confirmation lists exactly the files the run changes. Before, the check took
    the folder for a note (`New` -> `New.md`, moved to `Archive/New.md`): the human approved a
    note's move and creates in `New/`, and the run moved the folder with its notes."""
    steps = [
        {"id": "a", "tool": "create_note", "args": {"path": "New/Fresh", "content": "# F\n"}},
        {"id": "b", "tool": "bulk_create_notes", "args": {"notes": [{"path": "New/B", "content": "# B\n"}]}},
        {"id": "mv", "tool": "move_note", "args": {"path": "New", "new_path": "Archive/New"}, "dependsOn": ["a", "b"]},
        {"id": "ap", "tool": "append_note", "args": {"path": "Fresh", "content": "more\n"}, "dependsOn": ["mv"]},
    ]
    plan = {"goal": "make a folder, then file it", "steps": steps}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        effects = checked["effects"]
        [moved] = effects["files_moved"]
        assert (moved["from"], moved["to"], moved["folder"]) == ("New", "Archive/New", True), moved
        assert moved["moved_files"] == ["Archive/New/B.md", "Archive/New/Fresh.md", "New/B.md", "New/Fresh.md"]
        assert sorted(effects["files_created"]) == ["Archive/New/B.md", "Archive/New/Fresh.md"], effects
        assert effects["failures"] == [] and effects["files_modified"] == []
        asked = await vg.err("execute_plan", "elicit_required", plan=plan)
        assert "New.md" not in asked["details"]["preview"], asked["details"]["preview"]
        before = vg.snapshot()
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done", [st["errors"] for st in run["steps"]]
        after = vg.snapshot()
        vault = vg.root.name
        changed = {
            k[len(vault) + 1 :]
            for k in set(before) | set(after)
            if before.get(k) != after.get(k) and not k.endswith("/")
        }
        assert changed == set(asked["details"]["files"]), (sorted(changed), asked["details"]["files"])
        assert vg.read("Archive/New/Fresh.md") == "# F\nmore\n" and not (vg.root / "New").exists()
