"""A plan whose earlier steps edit a note (a patch, a property or tag edit, a task's status, a
daily note's append, a find and replace, a tag rename) and whose later step moves a note it then
links to (or no longer links to): the move's preview counts the links as the run rewrites them.

Before: only create/write/append/prepend/copy were foreseen in a note's planned text; any other
edit left the note read as it was on disk, so `[patch_note A adds [[Hub/Target]], move_note
Target -> Archive/]` previewed 1 link rewritten (Home's) and the run rewrote 2 (Home's and the
patched line in A), and a deleted linking property was still counted. replace_text was no
foreseen step at all (a `bulk_changes` entry: the confirmation said it changes files only the run
knows). Now each edit is foreseen with the tool's own edit function; where the check cannot
foresee it (a template an earlier step makes, a link rewrite, a text only the run makes) the move
says its counts are an estimate (`estimate`), and the confirmation says its list may be short;
a patch of a heading the note lacks is foreseen failing (test_plan_edit_refusals.py): no change.
An applied template was an estimate until s75 (its template is found by an async finder): the
check now finds it through the host and composes the tool's own `applied`.

Each plan: validate_plan's move entry == the move's own result in the confirmed run
(`rewritten_in`, `links_rewritten`, `files_changed`), the confirmation's files == the files the
run changed on disk, and undo_last_plan puts every byte back."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

TASK = "- [ ] call [[Hub/Target]] 🔁 every day 📅 2026-12-01"
VAULT = {
    "Hub/Target.md": "# Target\n",
    "Home.md": "see [[Hub/Target]]\n",
    "A.md": "# A\n\n## Links\n\nnone yet ^b1\n\n## End\n",
    "P.md": '---\nup: "[[Hub/Target]]"\n---\n# P\n',
    "Tasks.md": f"{TASK}\n",
    "Crlf.md": "# C\r\n\r\n## Links\r\n\r\nnone yet\r\n",
    "Daily/2026-12-01.md": "# day\n",
    "Templates/Linked.md": "about [[Hub/Target]]\n",
    ".obsidian/daily-notes.json": json.dumps({"folder": "Daily", "format": "YYYY-MM-DD"}),
    ".obsidian/templates.json": json.dumps({"folder": "Templates"}),
}
LINK = "[[Hub/Target]]"
TEMPLATE = {"Templates/Up.md": '---\nup: "[[Hub/Target]]"\ntags: [t]\n---\n# {{title}}\n\n## S\n'}
MOVE = {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}}
BIN = {"id": "bin", "tool": "delete_note", "args": {"path": "Home", "permanent": True}, "dependsOn": ["mv"]}
FORESEEN: dict[str, list[dict[str, Any]]] = {
    "patch under a heading": [{"tool": "patch_note", "args": {"path": "A", "heading": ["Links"], "content": LINK}}],
    "patch of the section the path names": [
        {"tool": "patch_note", "args": {"path": "A#Links", "content": LINK, "position": "replace"}}
    ],
    "patch after a block": [{"tool": "patch_note", "args": {"path": "A", "block": "b1", "content": LINK}}],
    "patch at an anchor": [
        {"tool": "patch_note", "args": {"path": "A", "anchor": "none yet", "content": LINK, "position": "replace"}}
    ],
    "patch of a CRLF note": [{"tool": "patch_note", "args": {"path": "Crlf", "heading": ["Links"], "content": LINK}}],
    "a property set to a link": [{"tool": "set_properties", "args": {"path": "A", "properties": {"up": LINK}}}],
    "the linking property deleted": [{"tool": "delete_property", "args": {"path": "P", "key": "up"}}],
    "the linking property replaced": [
        {"tool": "set_properties", "args": {"path": "P", "properties": {"up": None, "see": [LINK, "[[Home]]"]}}}
    ],
    "tags added beside a linking property": [{"tool": "add_tags", "args": {"path": "P", "tags": ["t"]}}],
    "a tag added in the body": [
        {"tool": "add_tags", "args": {"path": "A", "tags": ["t"], "inline": True, "heading": ["Links"]}}
    ],
    "a recurring task done": [
        {"tool": "set_task_status", "args": {"path": "Tasks", "line": 1, "status": "x", "expected_text": TASK[6:]}}
    ],
    "appended to a daily note": [
        {"tool": "append_to_periodic_note", "args": {"date": "2026-12-01", "content": f"met {LINK}"}}
    ],
    "appended to a daily note not there yet": [
        {"tool": "append_to_periodic_note", "args": {"date": "2026-12-02", "content": f"met {LINK}"}}
    ],
    "text replaced in one note": [
        {"tool": "replace_text", "args": {"path": "A", "find": "none yet", "replace": LINK, "dry_run": False}}
    ],
    "text replaced across the vault": [
        {"tool": "replace_text", "args": {"find": "none yet", "replace": LINK, "dry_run": False}}
    ],
    "a patch of a heading the note lacks, foreseen failing": [
        {"tool": "patch_note", "args": {"path": "A", "heading": ["Nope"], "content": LINK}, "onError": "continue"}
    ],
    "a made note patched": [
        {"id": "mk", "tool": "create_note", "args": {"path": "New/N", "content": "# N\n\n## S\n"}},
        {"tool": "patch_note", "args": {"path": "$steps.mk.path", "heading": ["S"], "content": LINK}},
    ],
    "a made note's property set by its bare name": [
        {"tool": "create_note", "args": {"path": "Idea", "content": "idea\n"}},
        {"tool": "set_properties", "args": {"path": "Idea", "properties": {"up": LINK}}},
    ],
    "a template applied": [{"tool": "apply_template", "args": {"template": "Linked", "path": "A"}}],
    "a template applied under a heading": [
        {"tool": "apply_template", "args": {"template": "Linked", "path": "A", "heading": ["Links"]}}
    ],
    "a template's linking property merged": [{"tool": "apply_template", "args": {"template": "Up", "path": "A"}}],
    "a template's property kept out by the note's own": [
        {"tool": "apply_template", "args": {"template": "Up", "path": "P", "position": "prepend"}}
    ],
    "a note made from a template": [{"tool": "apply_template", "args": {"template": "Up", "path": "New/T"}}],
    "a note made from a template, then patched under its heading": [
        {"id": "mk", "tool": "apply_template", "args": {"template": "Templates/Up.md", "path": "Fresh"}},
        {"tool": "patch_note", "args": {"path": "$steps.mk.path", "heading": ["Fresh", "S"], "content": LINK}},
    ],
    "links repointed by rewrite_links": [
        {"tool": "rewrite_links", "args": {"old_target": "Hub/Target", "new_target": "P", "dry_run": False}}
    ],
    "links repointed by rewrite_links to a note the plan makes": [
        {"tool": "create_note", "args": {"path": "Hub/Target v2", "content": "# v2\n"}},
        {
            "tool": "rewrite_links",
            "args": {"old_target": "Hub/Target", "new_target": "Hub/Target v2", "dry_run": False},
        },
        {"tool": "append_note", "args": {"path": "A", "content": LINK}},
    ],
    "a made note's text replaced, then its tag renamed": [
        {"tool": "create_note", "args": {"path": "Draft", "content": "#old none yet\n"}},
        {"tool": "replace_text", "args": {"find": "none yet", "replace": LINK, "dry_run": False}},
        {"tool": "rename_tag", "args": {"old": "old", "new": "new", "dry_run": False}},
    ],
}


def _steps(earlier: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The earlier steps with ids, then the move (captured), then a delete that asks a human."""
    named = [{"id": f"s{i}", **step} for i, step in enumerate(earlier)]
    return [*named, {**MOVE, "captureAs": "moved"}, BIN]


async def _checked_and_run(vg: Harness, plan: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """validate_plan's move entry, execute_plan's confirmation details, and the move's result in
    the confirmed run; the confirmation's files == the files the run changed."""
    checked = await vg.ok("validate_plan", plan=plan)
    assert checked["valid"], checked["problems"]
    asked = (await vg.err("execute_plan", "elicit_required", plan=plan))["details"]
    before = vg.snapshot()
    run = await vg.confirmed("execute_plan", plan=plan)
    assert asked["files"] == sorted(vg.changed_since(before)), (asked["files"], sorted(vg.changed_since(before)))
    moved = next(m for m in checked["effects"]["files_moved"] if m["from"] == "Hub/Target.md")
    result = next(s for s in run["steps"] if s["id"] == "mv")["result"]
    return moved, asked, result


@pytest.mark.parametrize("name", list(FORESEEN))
async def test_a_moves_preview_foresees_the_edits_before_it(make_vault: Callable[..., Path], name: str) -> None:
    plan = {"goal": name, "steps": _steps(FORESEEN[name])}
    async with started(make_vault({**VAULT, **TEMPLATE})) as vg:
        await vg.indexed()
        start = vg.snapshot()
        moved, asked, result = await _checked_and_run(vg, plan)
        assert (moved["rewritten_in"], moved["links_rewritten"], moved["files_changed"]) == (
            sorted(i["path"] for i in result["items"]),
            result["links_rewritten"],
            result["notes_rewritten"],
        ), (moved, result)
        assert moved["estimate"] is False, moved
        assert "run time" not in asked["preview"] and "estimated" not in asked["preview"], asked["preview"]
        await vg.confirmed("undo_last_plan")
        assert vg.snapshot() == start


UNFORESEEN: dict[str, list[dict[str, Any]]] = {
    "a template an earlier step made": [
        {"tool": "create_note", "args": {"path": "Templates/Made", "content": f"{LINK}\n"}},
        {"tool": "apply_template", "args": {"template": "Made", "path": "A"}},
    ],
    "a text only the run makes": [
        {"id": "mk", "tool": "create_note", "args": {"path": "Made", "content": "x\n"}},
        {"tool": "append_note", "args": {"path": "A", "content": f"{LINK} at ${{steps.mk.etag}}"}},
    ],
}


@pytest.mark.parametrize("name", list(UNFORESEEN))
async def test_an_edit_the_check_cannot_foresee_makes_the_counts_an_estimate(
    make_vault: Callable[..., Path], name: str
) -> None:
    """The move's entry says `estimate`, the summary names it and the confirmation says its list
    is what is known now; undo still restores every byte."""
    plan = {"goal": name, "steps": _steps(UNFORESEEN[name])}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        [moved] = checked["effects"]["files_moved"]
        assert moved["estimate"] is True, moved
        asked = (await vg.err("execute_plan", "elicit_required", plan=plan))["details"]
        assert "link rewrites estimated (1 moves" in asked["preview"], asked["preview"]
        assert "the list below is what is known now" in asked["preview"], asked["preview"]
        await vg.confirmed("execute_plan", plan=plan)
        await vg.confirmed("undo_last_plan")
        assert vg.snapshot() == start
