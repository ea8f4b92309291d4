"""A plan's steps name notes the way every tool takes them (a bare name, a partial path, a
wikilink): the effects validate_plan reports, the path ACL check and the preview a human approves
name the file the step will change, as the run then finds it (issue 41 items 3 and 4)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, snapshot, started

VAULT = {"Projects/Launch plan.md": "# Launch plan\n", "Home.md": "See [[Launch plan]].\n"}


def _changed(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    """The files whose bytes differ (folders left out)."""
    return {k for k in set(before) | set(after) if before.get(k) != after.get(k) and not k.endswith("/")}


async def _approved_run(vg: Harness, plan: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """Run `plan` as a human approves it: the confirmation it asks for (its `details`) and the
    files the confirmed run then changed on disk."""
    asked = await vg.err("execute_plan", "elicit_required", plan=plan)
    before = snapshot(vg.root)
    run = await vg.confirmed("execute_plan", plan=plan)
    assert run["status"] == "done", run
    return asked["details"], _changed(before, snapshot(vg.root))


async def test_a_bare_name_is_previewed_as_the_note_the_run_moves(make_vault: Callable[..., Path]) -> None:
    plan = {
        "goal": "archive",
        "steps": [{"id": "m", "tool": "move_note", "args": {"path": "Launch plan", "new_path": "Archive/Launch plan"}}],
    }
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        [moved] = checked["effects"]["files_moved"]
        assert (moved["from"], moved["to"]) == ("Projects/Launch plan.md", "Archive/Launch plan.md")
        asked, changed = await _approved_run(vg, plan)
        assert "Projects/Launch plan.md -> Archive/Launch plan.md" in asked["preview"]
        assert set(asked["files"]) == changed


async def test_the_acl_judges_the_note_a_bare_name_finds(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Projects", "write": "deny"}]}
    async with started(make_vault(VAULT), acl=acl) as vg:
        await vg.indexed()
        plan = {
            "goal": "g",
            "steps": [{"id": "add", "tool": "append_note", "args": {"path": "[[Launch plan]]", "content": "x"}}],
        }
        out = await vg.ok("validate_plan", plan=plan)
        assert [(p["step"], p["code"]) for p in out["problems"]] == [("add", "acl_denied")]
        assert "Projects/Launch plan.md" in out["problems"][0]["message"]


async def test_a_name_a_step_created_or_moved_names_that_file(make_vault: Callable[..., Path]) -> None:
    plan = {
        "goal": "g",
        "steps": [
            {"id": "mk", "tool": "create_note", "args": {"path": "Inbox/Fresh", "content": "new\n"}},
            {"id": "add", "tool": "append_note", "args": {"path": "Fresh", "content": "more\n"}, "dependsOn": ["mk"]},
            {"id": "mv", "tool": "move_note", "args": {"path": "Launch plan", "new_path": "Old/Launch plan"}},
            {"id": "tag", "tool": "add_tags", "args": {"path": "Launch plan", "tags": ["old"]}, "dependsOn": ["mv"]},
            {"id": "new", "tool": "write_note", "args": {"path": "Brand new", "content": "x\n"}},
        ],
    }
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        assert sorted(effects["files_created"]) == ["Brand new.md", "Inbox/Fresh.md"], effects
        assert effects["files_modified"] == ["Old/Launch plan.md"], effects
        asked, changed = await _approved_run(vg, plan)
        assert changed == {"Inbox/Fresh.md", "Projects/Launch plan.md", "Old/Launch plan.md", "Brand new.md"}
        assert set(asked["files"]) == changed
        assert "more" in (vg.root / "Inbox/Fresh.md").read_text()
        assert "old" in (vg.root / "Old/Launch plan.md").read_text()


async def test_a_plan_moving_a_folder_shows_every_file_it_changes(make_vault: Callable[..., Path]) -> None:
    files = {
        "Plugins/A.md": "# A\n[[Plugins/B]]\n",
        "Plugins/B.md": "# B\n",
        "Plugins/Deep/C.md": "# C\n",
        "Home.md": "[[Plugins/A]] and [[Plugins/Deep/C|C]]\n",
        "Other.md": "nothing\n",
    }
    plan = {
        "goal": "g",
        "steps": [{"id": "m", "tool": "move_note", "args": {"path": "Plugins", "new_path": "Core/Plugins"}}],
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        [moved] = checked["effects"]["files_moved"]
        assert (moved["from"], moved["to"], moved["folder"]) == ("Plugins", "Core/Plugins", True)
        asked, changed = await _approved_run(vg, plan)
        assert "Home.md" in changed and "Core/Plugins/Deep/C.md" in changed
        assert set(asked["files"]) == changed


async def test_the_folders_a_new_note_makes_are_listed(make_vault: Callable[..., Path]) -> None:
    plan = {
        "goal": "g",
        "steps": [
            {"id": "a", "tool": "create_note", "args": {"path": "Reports/2026/Q4", "content": "x\n"}},
            {"id": "b", "tool": "create_note", "args": {"path": "Reports/2026/Q3", "content": "x\n"}},
            {"id": "c", "tool": "create_note", "args": {"path": "Projects/New", "content": "x\n"}},
            {"id": "d", "tool": "move_note", "args": {"path": "Launch plan", "new_path": "Old/Deep/Launch plan"}},
        ],
    }
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        assert effects["folders_created"] == ["Reports", "Reports/2026", "Old", "Old/Deep"], effects
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert all((vg.root / f).is_dir() for f in effects["folders_created"])


async def test_move_and_rename_destinations_follow_the_tools_rules(make_vault: Callable[..., Path]) -> None:
    files = {
        **VAULT,
        "Sync/Intro.md": "---\naliases: [Sync]\n---\n# Intro\n",  # a folder 'Sync' and a note aliased 'Sync'
        "Sync/More.md": "# More\n",
    }
    plan = {
        "goal": "g",
        "steps": [
            {"id": "mv", "tool": "move_note", "args": {"path": "Launch plan", "new_path": "Launch v2"}},
            {"id": "rn", "tool": "rename_note", "args": {"path": "Sync", "new_path": "Synced"}},
        ],
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        moved = (await vg.ok("validate_plan", plan=plan))["effects"]["files_moved"]
        assert [(m["from"], m["to"], m["folder"]) for m in moved] == [
            ("Projects/Launch plan.md", "Launch v2.md", False),  # move_note: a bare name is the vault's root
            ("Sync", "Synced", True),  # the folder, as the tool takes it, not the note aliased 'Sync'
        ]
        asked, changed = await _approved_run(vg, plan)
        assert {"Launch v2.md", "Synced/Intro.md", "Synced/More.md"} <= changed
        assert set(asked["files"]) == changed


async def test_a_section_given_to_a_whole_note_tool_makes_the_plan_invalid(make_vault: Callable[..., Path]) -> None:
    steps = [
        {"id": "tag", "tool": "add_tags", "args": {"path": "Launch plan", "tags": ["q3"]}},
        {"id": "prop", "tool": "set_properties", "args": {"path": "Launch plan#Goals", "properties": {"s": "x"}}},
        {"id": "patch", "tool": "patch_note", "args": {"path": "Launch plan#Goals", "content": "x"}},
    ]
    files = {**VAULT, "Projects/Launch plan.md": "# Launch plan\n\n## Goals\n", "Odd #1.md": "odd\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        before = snapshot(vg.root)
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": steps})
        assert not checked["valid"]
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("prop", "validation_error")]
        await vg.err("execute_plan", "validation_error", plan={"goal": "g", "steps": steps})
        assert snapshot(vg.root) == before  # refused before the first step wrote
        odd = [{"id": "t", "tool": "add_tags", "args": {"path": "Odd #1", "tags": ["q3"]}}]  # a '#' in a file name
        assert (await vg.ok("validate_plan", plan={"goal": "g", "steps": odd}))["valid"]


async def test_a_bare_name_of_the_periodic_note_an_earlier_step_makes_is_that_note(
    make_vault: Callable[..., Path],
) -> None:
    daily = '{"folder": "Daily", "format": "YYYY-MM-DD"}'
    plan = {
        "goal": "log",
        "steps": [
            {"id": "d", "tool": "create_periodic_note", "args": {"period": "daily", "date": "2026-12-01"}},
            {"id": "a", "tool": "append_note", "args": {"path": "2026-12-01", "content": "Ann"}, "dependsOn": ["d"]},
        ],
    }
    async with started(make_vault({**VAULT, ".obsidian/daily-notes.json": daily, "Daily/.keep.md": ""})) as vg:
        await vg.indexed()
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        assert effects["files_created"] == ["Daily/2026-12-01.md"] and effects["unresolved"] == []
        before = snapshot(vg.root)
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert _changed(before, snapshot(vg.root)) == {"Daily/2026-12-01.md"}


async def test_a_bare_name_after_a_move_of_a_created_note_is_previewed_as_the_moved_note(
    make_vault: Callable[..., Path],
) -> None:
    """A created note moved by a step whose source is the create's result, then appended to by
    its bare name: never previewed as a new `Final.md` at the root that the run does not make
    (T1 s62 #1). The create's `path` is known at validation, so the move and the append are
    previewed as the run does them: the note is made at `Archive/Final.md`, nothing unresolved
    (before, both steps were listed unresolved and the note at its first path)."""
    plan = {
        "goal": "combo",
        "steps": [
            {"id": "mk", "tool": "create_note", "args": {"path": "Plan/Draft", "content": "# Draft\n"}},
            {"id": "mv", "tool": "move_note", "args": {"path": "$steps.mk.path", "new_path": "Archive/Final"}},
            {"id": "link", "tool": "append_note", "args": {"path": "Final", "content": "back"}, "dependsOn": ["mv"]},
        ],
    }
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        assert effects["files_created"] == ["Archive/Final.md"] and effects["unresolved"] == []
        asked, changed = await _approved_run(vg, plan)
        assert "Final.md" not in asked["files"] and set(asked["files"]) == changed
        assert changed == {"Archive/Final.md"} and "back" in vg.read("Archive/Final.md")


async def test_only_a_step_that_may_make_the_note_makes_a_later_name_late(make_vault: Callable[..., Path]) -> None:
    """After a step known at run time that makes no note (add_tags on a result), a later create
    is an ordinary create; after one that may make it, the path as written is still checked as the
    call checks it (path_invalid), whatever note the run finds (R2 s62 F2). The late step's
    path is a search's result: the search runs after the create, so only the run knows it (the
    create's own `path` is known at validation)."""

    def plan(late: dict[str, Any], path: str) -> dict[str, Any]:
        steps = [
            {"id": "mk", "tool": "create_note", "args": {"path": "Plan/Draft", "content": "# Draft\n"}},
            {"id": "find", "tool": "search_text", "args": {"query": "Draft"}, "dependsOn": ["mk"]},
            {"id": "late", **late, "dependsOn": ["find"]},
            {"id": "sum", "tool": "create_note", "args": {"path": path, "content": "summary\n"}},
        ]
        return {"goal": "g", "steps": steps}

    tag = {"tool": "add_tags", "args": {"path": "$steps.find.items[0].path", "tags": ["x"]}}
    move = {"tool": "move_note", "args": {"path": "$steps.find.items[0].path", "new_path": "Archive/Final"}}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        out = await vg.ok("validate_plan", plan=plan(tag, "Reports/Summary"))
        assert out["valid"] and "Reports/Summary.md" in out["effects"]["files_created"]
        assert out["effects"]["unresolved"] == ["late"]
        for late in (tag, move):
            out = await vg.ok("validate_plan", plan=plan(late, "../outside"))
            assert not out["valid"] and [(p["step"], p["code"]) for p in out["problems"]] == [("sum", "path_invalid")]


async def test_a_name_whose_path_as_written_is_a_file_names_that_file(make_vault: Callable[..., Path]) -> None:
    """`Home` is `Home.md` while a file is there, as the tools take the path as written before any
    name: a note an earlier step made elsewhere with that name (`Inbox/Home.md`) does not take
    its place. Before, the check previewed the append as an edit of the new note, and the run
    appended to `Home.md`, which the confirmation did not list."""
    plan = {
        "goal": "g",
        "steps": [
            {"id": "mk", "tool": "create_note", "args": {"path": "Inbox/Home", "content": "# Inbox home\n"}},
            {"id": "add", "tool": "append_note", "args": {"path": "Home", "content": "more\n"}, "dependsOn": ["mk"]},
            {"id": "mv", "tool": "move_note", "args": {"path": "Launch plan", "new_path": "Old/Launch plan"}},
        ],
    }
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        assert effects["files_created"] == ["Inbox/Home.md"] and effects["files_modified"] == ["Home.md"], effects
        asked, changed = await _approved_run(vg, plan)
        assert changed == {"Inbox/Home.md", "Home.md", "Projects/Launch plan.md", "Old/Launch plan.md"}
        assert set(asked["files"]) == changed
        assert vg.read("Home.md").endswith("more\n") and vg.read("Inbox/Home.md") == "# Inbox home\n"


async def test_a_name_that_fits_a_made_note_and_a_vault_note_is_foreseen_as_the_run_meets_it(
    make_vault: Callable[..., Path],
) -> None:
    """A bare name that fits a note an earlier step made and one the vault holds is decided by
    the tools' own rules over both: several fit (`ambiguous_note`, foreseen as a failure), or the
    exact letter case picks the vault's note. Before, the check took the made note in both cases:
    it called the first plan valid (the run failed there) and previewed the second as an edit of
    the new note (the run appended to `Projects/Launch plan.md`)."""
    made = {"id": "mk", "tool": "create_note", "args": {"path": "Drafts/Launch plan", "content": "# draft\n"}}
    add = {
        "id": "add",
        "tool": "append_note",
        "args": {"path": "Launch plan", "content": "more\n"},
        "dependsOn": ["mk"],
    }
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        plan = {"goal": "g", "steps": [made, add]}
        checked = await vg.ok("validate_plan", plan=plan)
        [failure] = checked["effects"]["failures"]
        assert (failure["step"], failure["code"], failure["path"]) == ("add", "ambiguous_note", "Launch plan")
        assert not checked["valid"]
        run = await vg.ok("execute_plan", plan={"goal": "g", "steps": [made, {**add, "onError": "continue"}]})
        [error] = run["steps"][1]["errors"]
        assert error["code"] == "ambiguous_note", run
    lower = {**made, "args": {"path": "Drafts/launch plan", "content": "# draft\n"}}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        plan = {"goal": "g", "steps": [lower, add]}
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        assert effects["files_modified"] == ["Projects/Launch plan.md"] and effects["failures"] == [], effects
        before = snapshot(vg.root)
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert _changed(before, snapshot(vg.root)) >= {"Projects/Launch plan.md", "Drafts/launch plan.md"}
        assert vg.read("Projects/Launch plan.md").endswith("more\n")
