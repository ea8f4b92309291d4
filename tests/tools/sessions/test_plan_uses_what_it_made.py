"""Plans whose later steps use what earlier steps made, as a user combines them: a `foreach`
over the paths an earlier create, bulk create or foreach answers, bare note names (no folder,
no '.md'), and a move of a note that notes the plan made link to. validate_plan's effects are
compared field by field with what execute_plan then changes on disk (and with the move's own
result), and undo_last_plan puts every file back.

Before: a `foreach` over `$steps.mk.items[*].path` (a bulk_create_notes) or `$steps.mk[*].path`
(a foreach create) was known only at run time, so the confirmation listed the notes where they
were made (`Inbox/A.md`), no file after the run, and not where the run moved them; and a move's
preview counted the links of notes on disk only, while the run also rewrote the links a note
made by the plan held (`rewritten_in`, `links_rewritten`, `files_changed` short of the run's)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

VAULT = {
    "Hub/Target.md": "# Target\n",
    "Home.md": "see [[Hub/Target]]\n",
    "Inbox/Old.md": "old\n",
}

BULK_THEN_EACH: dict[str, Any] = {
    "goal": "draft two notes, tag and file each",
    "steps": [
        {
            "id": "mk",
            "tool": "bulk_create_notes",
            "args": {"notes": [{"path": "Inbox/A", "content": "# A\n"}, {"path": "Inbox/B", "content": "# B\n"}]},
        },
        {
            "id": "tag",
            "tool": "add_tags",
            "foreach": "$steps.mk.items[*].path",
            "args": {"path": "$item", "tags": ["t"]},
        },
        {
            "id": "mv",
            "tool": "move_note",
            "foreach": "$steps.mk.items[*].path",
            "as": "note",
            "args": {"path": "$note", "new_path": "Archive/"},
            "dependsOn": ["tag"],
        },
    ],
}
EACH_THEN_EACH: dict[str, Any] = {  # bare names: 'Idea one' is 'Idea one.md' at the vault's top
    "goal": "two ideas, each renamed",
    "steps": [
        {"id": "mk", "tool": "create_note", "foreach": ["Idea one", "Idea two"], "args": {"path": "${item}"}},
        {
            "id": "rn",
            "tool": "rename_note",
            "foreach": "$steps.mk[*].path",
            "args": {"path": "$item", "new_path": "Done ${item}"},
        },
        {
            "id": "ap",
            "tool": "append_note",
            "args": {"path": "Done Idea two", "content": "more\n"},
            "dependsOn": ["rn"],
        },
    ],
}
LINKED_THEN_MOVED: dict[str, Any] = {  # a note the plan makes links to the note it then moves
    "goal": "log the target, then file it",
    "steps": [
        {"id": "log", "tool": "create_note", "args": {"path": "Log", "content": "# Log\n\nsee [[Hub/Target]]\n"}},
        {"id": "more", "tool": "append_note", "args": {"path": "Log", "content": "and [[Hub/Target#x]]\n"}},
        {"id": "card", "tool": "create_note", "args": {"path": "Cards/Card", "frontmatter": {"up": "[[Hub/Target]]"}}},
        {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}, "captureAs": "moved"},
    ],
}


async def _previewed_then_run(vg: Harness, plan: dict[str, Any]) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    """validate_plan's effects, then the files execute_plan's confirmation names; runs the plan
    confirmed and checks that the files it changed are exactly those."""
    checked = await vg.ok("validate_plan", plan=plan)
    assert checked["valid"], checked["problems"]
    asked = await vg.err("execute_plan", "elicit_required", plan=plan)
    before = vg.snapshot()
    run = await vg.confirmed("execute_plan", plan=plan)
    assert run["status"] == "done", [s["errors"] for s in run["steps"]]
    files = asked["details"]["files"]
    assert set(files) == vg.changed_since(before), (sorted(files), sorted(vg.changed_since(before)))
    _field_by_field(checked["effects"], before, vg.snapshot(), vg.root.name)
    assert "run time" not in asked["details"]["preview"], asked["details"]["preview"]
    return checked["effects"], files, run


def _field_by_field(effects: dict[str, Any], before: dict[str, bytes], after: dict[str, bytes], vault: str) -> None:
    """Each field of the effects against the disk: the files that appeared are those created and
    where the notes on disk moved to, those gone the deleted ones and where they moved from, and
    those changed in place the modified ones and every note a move rewrote."""
    old, new = (
        {k[len(vault) + 1 :]: v for k, v in snap.items() if k.startswith(f"{vault}/") and not k.endswith("/")}
        for snap in (before, after)
    )
    moves = effects["files_moved"]
    froms = {f for m in moves for f in (m["moved_files"] or []) if f.startswith(f"{m['from']}/")}
    tos = {f for m in moves for f in (m["moved_files"] or []) if f.startswith(f"{m['to']}/")}
    froms |= {m["from"] for m in moves if not m["folder"]}
    tos |= {m["to"] for m in moves if not m["folder"]}
    moved_away = {f for f in froms if f in old and f not in new}
    moved_to = {f for f in tos if f in new and f not in old} - set(effects["files_created"])
    rewritten = {rel for m in moves for rel in m["rewritten_in"] or []}
    assert set(effects["files_created"]) == set(new) - set(old) - moved_to, effects
    assert set(effects["files_deleted"]) == set(old) - set(new) - moved_away, effects
    kept = {rel for rel in set(old) & set(new) if old[rel] != new[rel]}
    assert (set(effects["files_modified"]) | rewritten) & set(old) == kept, (effects, kept)


async def _undone(vg: Harness, before: dict[str, bytes]) -> None:
    await vg.confirmed("undo_last_plan")
    assert vg.snapshot() == before


@pytest.mark.covers("validate_plan", "success")
async def test_a_foreach_over_a_bulk_creates_paths_previews_each_note_where_the_run_leaves_it(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        effects, files, _run = await _previewed_then_run(vg, BULK_THEN_EACH)
        assert effects["unresolved"] == [] and effects["estimated_steps"] == 5, effects
        assert sorted(effects["files_created"]) == ["Archive/A.md", "Archive/B.md"], effects
        moved = [(m["from"], m["to"]) for m in effects["files_moved"]]
        assert moved == [("Inbox/A.md", "Archive/A.md"), ("Inbox/B.md", "Archive/B.md")], effects
        assert sorted(files) == ["Archive/A.md", "Archive/B.md"]
        assert "tags: [t]" in vg.read("Archive/A.md") or "- t" in vg.read("Archive/A.md"), vg.read("Archive/A.md")
        await _undone(vg, start)


async def test_a_foreach_over_a_foreach_creates_paths_by_bare_names(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        effects, files, _run = await _previewed_then_run(vg, EACH_THEN_EACH)
        assert effects["unresolved"] == [], effects
        assert sorted(effects["files_created"]) == ["Done Idea one.md", "Done Idea two.md"], effects
        moved = [(m["from"], m["to"]) for m in effects["files_moved"]]
        assert moved == [("Idea one.md", "Done Idea one.md"), ("Idea two.md", "Done Idea two.md")], effects
        assert sorted(files) == ["Done Idea one.md", "Done Idea two.md"]
        assert vg.read("Done Idea two.md") == "more\n"
        await _undone(vg, start)


async def test_a_moves_preview_counts_the_links_in_notes_the_plan_made(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        effects, files, run = await _previewed_then_run(vg, LINKED_THEN_MOVED)
        [moved] = effects["files_moved"]
        result = next(s for s in run["steps"] if s["id"] == "mv")["result"]
        assert (
            (moved["from"], moved["to"])
            == (result["old_path"], result["path"])
            == ("Hub/Target.md", "Archive/Target.md")
        )
        rewritten = ["Cards/Card.md", "Home.md", "Log.md"]
        assert moved["rewritten_in"] == sorted(i["path"] for i in result["items"]) == rewritten, (moved, result)
        assert moved["links_rewritten"] == result["links_rewritten"] == 4, (moved, result)
        assert moved["files_changed"] == result["notes_rewritten"] == 3, (moved, result)
        assert sorted(files) == ["Archive/Target.md", "Cards/Card.md", "Home.md", "Hub/Target.md", "Log.md"]
        assert vg.read("Log.md") == "# Log\n\nsee [[Archive/Target]]\nand [[Archive/Target#x]]\n"
        await _undone(vg, start)


async def test_a_foreach_over_a_read_after_a_change_says_it_is_known_at_run_time(
    make_vault: Callable[..., Path],
) -> None:
    """The list a read gives after the plan's first change is known only at run time: the
    step is listed as such and the confirmation says its list is incomplete, never a move of a
    note it guessed."""
    plan = {
        "goal": "make a note, then file the inbox",
        "steps": [
            {"id": "mk", "tool": "create_note", "args": {"path": "Inbox/C", "content": "c\n"}},
            {"id": "find", "tool": "list_notes", "args": {"folder": "Inbox"}, "dependsOn": ["mk"]},
            {
                "id": "mv",
                "tool": "move_note",
                "foreach": "$steps.find.items[*].path",
                "args": {"path": "$item", "new_path": "Archive/"},
            },
        ],
    }
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        assert checked["effects"]["unresolved"] == ["mv"] and checked["effects"]["files_moved"] == []
        asked = await vg.err("execute_plan", "elicit_required", plan=plan)
        preview = asked["details"]["preview"]
        assert "known at run time (1): mv" in preview, preview
        assert "may also change, move or delete files it lists" in preview, preview


LINKERS = {**VAULT, "Notes/Ref.md": "ref [[Target]] and [[Hub/Target]]\n"}
MOVE_TARGET = {
    "id": "mv",
    "tool": "move_note",
    "args": {"path": "Target", "new_path": "Archive/"},
    "captureAs": "moved",
}
BEFORE_THE_MOVE: dict[str, list[dict[str, Any]]] = {  # what earlier steps do to the notes linking the moved one
    "a copy of a linking note": [{"id": "cp", "tool": "copy_note", "args": {"path": "Home", "new_path": "Copies/"}}],
    "a linking note overwritten": [
        {"id": "w", "tool": "write_note", "args": {"path": "Home", "content": "no link\n", "mode": "overwrite"}}
    ],
    "a link prepended": [
        {"id": "p", "tool": "prepend_note", "args": {"path": "Inbox/Old", "content": "[[Hub/Target]]"}}
    ],
    "a linking note moved": [{"id": "m", "tool": "move_note", "args": {"path": "Notes/Ref", "new_path": "Deep/Er/"}}],
    "a linking note deleted": [{"id": "d", "tool": "delete_note", "args": {"path": "Home"}}],
    "a made linking note moved": [
        {"id": "mk", "tool": "create_note", "args": {"path": "New", "content": "[[Hub/Target]]\n"}},
        {"id": "m", "tool": "move_note", "args": {"path": "$steps.mk.path", "new_path": "Sub/"}},
    ],
}


@pytest.mark.parametrize("earlier", list(BEFORE_THE_MOVE))
async def test_a_moves_preview_is_its_run_after_earlier_steps_changed_linking_notes(
    make_vault: Callable[..., Path], earlier: str
) -> None:
    """rewritten_in, links_rewritten and files_changed as the move's own result in the run gives
    them. Before: the copy's, the prepended and the moved note's links were missed, the
    overwritten and the deleted note's counted."""
    plan = {"goal": earlier, "steps": [*BEFORE_THE_MOVE[earlier], MOVE_TARGET]}
    async with started(make_vault(LINKERS)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        effects, _files, run = await _previewed_then_run(vg, plan)
        moved = effects["files_moved"][-1]
        result = next(s for s in run["steps"] if s["id"] == "mv")["result"]
        assert (moved["rewritten_in"], moved["links_rewritten"], moved["files_changed"]) == (
            sorted(i["path"] for i in result["items"]),
            result["links_rewritten"],
            result["notes_rewritten"],
        ), (moved, result)
        await _undone(vg, start)


@pytest.mark.parametrize("tool", ["rewrite_links", "rename_tag"])
async def test_a_rewrite_after_a_delete_does_not_list_the_deleted_note_as_modified(
    make_vault: Callable[..., Path], tool: str
) -> None:
    """The rewrite's own dry run reads the disk, where the note an earlier step deletes still
    links the target or carries the tag: it was listed in files_modified beside files_deleted."""
    args = (
        {"old_target": "Hub/Target", "new_target": "Inbox/Old"}
        if tool == "rewrite_links"
        else {"old": "old", "new": "new"}
    )
    plan = {
        "goal": "drop the home note, then rewrite what is left",
        "steps": [
            {"id": "rm", "tool": "delete_note", "args": {"path": "Home"}},
            {"id": "rw", "tool": tool, "args": {**args, "dry_run": False}},
        ],
    }
    files = {**VAULT, "Home.md": "see [[Hub/Target]] #old\n", "B.md": "[[Hub/Target]] #old\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        effects, _files, _run = await _previewed_then_run(vg, plan)
        assert (effects["files_modified"], effects["files_deleted"]) == (["B.md"], ["Home.md"]), effects
        await _undone(vg, start)


COMBINED: dict[str, list[dict[str, Any]]] = {  # a user's plans, each step using what an earlier one made
    "move each made note, then tag each where it went": [
        {"id": "mk", "tool": "bulk_create_notes", "args": {"notes": [{"path": "Inbox/A"}, {"path": "Inbox/B"}]}},
        {
            "id": "mv",
            "tool": "move_note",
            "foreach": "$steps.mk.items[*].path",
            "args": {"path": "$item", "new_path": "Archive/"},
        },
        {"id": "tg", "tool": "add_tags", "foreach": "$steps.mv[*].path", "args": {"path": "$item", "tags": ["x"]}},
    ],
    "copy each, then delete each copy": [
        {
            "id": "cp",
            "tool": "copy_note",
            "foreach": ["Home", "Inbox/Old"],
            "args": {"path": "$item", "new_path": "C/"},
        },
        {"id": "rm", "tool": "delete_note", "foreach": "$steps.cp[*].path", "args": {"path": "$item"}},
    ],
    "one name twice, numbered, then linked and the target moved": [
        {
            "id": "mk",
            "tool": "create_note",
            "foreach": ["Idea", "Idea"],
            "args": {"path": "$item", "if_exists": "unique", "content": "i\n"},
        },
        {
            "id": "ap",
            "tool": "append_note",
            "foreach": "$steps.mk[*].path",
            "args": {"path": "$item", "content": "[[Hub/Target]]"},
        },
        {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}},
    ],
    "bulk notes renamed each by a bare name": [
        {
            "id": "mk",
            "tool": "bulk_create_notes",
            "args": {"notes": [{"path": "P/one", "content": "[[Home]]"}, {"path": "P/two"}]},
        },
        {
            "id": "rn",
            "tool": "rename_note",
            "foreach": "$steps.mk.items[*].path",
            "as": "n",
            "args": {"path": "$n", "new_path": "x ${n}"},
        },
        {"id": "hm", "tool": "rename_note", "args": {"path": "Home", "new_path": "Start"}},
    ],
    "a made note in a folder the plan moves, then the target moved": [
        {"id": "mk", "tool": "create_note", "args": {"path": "Inbox/N", "content": "[[Hub/Target]] [t](../Home.md)\n"}},
        {"id": "f", "tool": "move_note", "args": {"path": "Inbox", "new_path": "Archive/Inbox"}},
        {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Elsewhere/"}},
    ],
    "a made note with a relative link, moved deeper": [
        {"id": "mk", "tool": "create_note", "args": {"path": "Inbox/N", "content": "[h](../Home.md) [[Home]]\n"}},
        {"id": "mv", "tool": "move_note", "args": {"path": "$steps.mk.path", "new_path": "Archive/Deep/"}},
    ],
    "a made note of the moved note's name": [
        {"id": "mk", "tool": "create_note", "args": {"path": "Other/Target", "content": "x\n"}},
        {"id": "ln", "tool": "create_note", "args": {"path": "Links", "content": "[[Target]] [[Hub/Target]]\n"}},
        {"id": "mv", "tool": "move_note", "args": {"path": "Hub/Target", "new_path": "Z/"}},
    ],
}


@pytest.mark.parametrize("name", list(COMBINED))
async def test_a_combined_plan_previews_what_its_run_changes(make_vault: Callable[..., Path], name: str) -> None:
    """Effects field by field == the disk after the confirmed run; each move's counts == its result."""
    steps = [{**s, "captureAs": f"got_{s['id']}"} for s in COMBINED[name]]
    async with started(make_vault({**VAULT, "Inbox/Old.md": "old [[Idea]]\n"})) as vg:
        await vg.indexed()
        start = vg.snapshot()
        effects, _files, run = await _previewed_then_run(vg, {"goal": name, "steps": steps})
        assert effects["unresolved"] == [], effects
        moves = [s for s in steps if s["tool"] in ("move_note", "rename_note")]
        if all("foreach" not in s for s in moves):  # one entry a call, in order
            for step, moved in zip(moves, effects["files_moved"], strict=True):
                result = next(r for r in run["steps"] if r["id"] == step["id"])["result"]
                assert (moved["links_rewritten"], moved["files_changed"]) == (
                    result["links_rewritten"],
                    result["notes_rewritten"],
                ), (step["id"], moved, result)
        await _undone(vg, start)
