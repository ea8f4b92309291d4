"""A step naming an earlier create_note, copy_note or move's note as `$steps.<id>.path` is checked
and previewed as the same plan with that path written out: the path the earlier step answers is
known at validation where its arguments decide it (the file it makes, `if_exists='unique'`'s
numbered name, where a move puts the note). Before, such a move stayed in `unresolved`, and
validate_plan listed the made note at its first path, where no file is after the run. A
reference the check cannot know (a search run after the first change, a field the run tells)
stays unresolved."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started
from tests.tools.test_previews_match_changes import _check, _vault


def _made_then_moved(path_arg: str) -> dict[str, Any]:
    return {
        "goal": "draft a hub and file it",
        "steps": [
            {"id": "mk", "tool": "create_note", "args": {"path": "Inbox/Publishing hub", "content": "# Hub\n"}},
            {"id": "mv", "tool": "move_note", "args": {"path": path_arg, "new_path": "Archive/"}, "dependsOn": ["mk"]},
        ],
    }


REFERENCE = _made_then_moved("$steps.mk.path")
INLINE = _made_then_moved("${steps.mk.path}")
LITERAL = _made_then_moved("Inbox/Publishing hub.md")
NUMBERED: dict[str, Any] = {  # 'Alone.md' is there: the create makes 'Alone 1.md', which is moved, then renamed
    "goal": "a second note of a taken name, filed",
    "steps": [
        {"id": "mk", "tool": "create_note", "args": {"path": "Alone", "content": "# A1\n", "if_exists": "unique"}},
        {"id": "mv", "tool": "move_note", "args": {"path": "$steps.mk.path", "new_path": "Archive/"}},
        {"id": "rn", "tool": "rename_note", "args": {"path": "$steps.mv.path", "new_path": "Second.md"}},
    ],
}
COPIED: dict[str, Any] = {
    "goal": "copy the other note and file the copy",
    "steps": [
        {"id": "cp", "tool": "copy_note", "args": {"path": "Hub/Other.md", "new_path": "Inbox/Copy.md"}},
        {"id": "mv", "tool": "move_note", "args": {"path": "$steps.cp.path", "new_path": "Archive/"}},
    ],
}

WRITTEN: dict[str, Any] = {  # the note a bare name finds ('Alone.md'), and a note write_note makes
    "goal": "add to a note and file it, write another and rename it",
    "steps": [
        {"id": "ap", "tool": "append_note", "args": {"path": "Alone", "content": "more\n"}},
        {"id": "mv", "tool": "move_note", "args": {"path": "$steps.ap.path", "new_path": "Archive/"}},
        {"id": "wr", "tool": "write_note", "args": {"path": "Inbox/W", "content": "# W\n"}},
        {"id": "rn", "tool": "rename_note", "args": {"path": "${steps.wr.path}", "new_path": "W2.md"}},
    ],
}


def _files(effects: dict[str, Any]) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    moved = [(m["from"], m["to"]) for m in effects["files_moved"]]
    return sorted(effects["files_created"]), moved, effects["unresolved"]


@pytest.mark.covers("validate_plan", "success")
async def test_a_reference_to_a_made_notes_path_previews_like_the_path_written_out(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(_vault())) as vg:
        literal = await vg.ok("validate_plan", plan=LITERAL)
        assert literal["valid"], literal["problems"]
        expected = (["Archive/Publishing hub.md"], [("Inbox/Publishing hub.md", "Archive/Publishing hub.md")], [])
        assert _files(literal["effects"]) == expected
        for plan in (REFERENCE, INLINE):
            checked = await vg.ok("validate_plan", plan=plan)
            assert checked["valid"], checked["problems"]
            assert _files(checked["effects"]) == expected, checked["effects"]
            assert checked["effects"]["bulk_changes"] == []
        numbered = await vg.ok("validate_plan", plan=NUMBERED)
        assert _files(numbered["effects"]) == (
            ["Archive/Second.md"],
            [("Alone 1.md", "Archive/Alone 1.md"), ("Archive/Alone 1.md", "Archive/Second.md")],
            [],
        ), numbered["effects"]
        captured = {**REFERENCE, "steps": [{**REFERENCE["steps"][0], "captureAs": "hub"}, dict(REFERENCE["steps"][1])]}
        captured["steps"][1]["args"] = {"path": "$steps.hub.path", "new_path": "Archive/"}
        assert _files((await vg.ok("validate_plan", plan=captured))["effects"]) == expected
        written = await vg.ok("validate_plan", plan=WRITTEN)
        assert _files(written["effects"]) == (
            ["Inbox/W2.md"],
            [("Alone.md", "Archive/Alone.md"), ("Inbox/W.md", "Inbox/W2.md")],
            [],
        ), written["effects"]
        copied = await vg.ok("validate_plan", plan=COPIED)
        assert _files(copied["effects"]) == (["Archive/Copy.md"], [("Inbox/Copy.md", "Archive/Copy.md")], [])


@pytest.mark.parametrize("name", ["reference", "literal", "numbered", "copied", "written"])
async def test_the_confirmed_run_changes_what_the_preview_listed(
    make_vault: Callable[..., Path], capsys: pytest.CaptureFixture[str], name: str
) -> None:
    plan, final, first = {
        "reference": (REFERENCE, "Archive/Publishing hub.md", "Inbox/Publishing hub.md"),
        "literal": (LITERAL, "Archive/Publishing hub.md", "Inbox/Publishing hub.md"),
        "numbered": (NUMBERED, "Archive/Second.md", "Alone 1.md"),
        "copied": (COPIED, "Archive/Copy.md", "Inbox/Copy.md"),
        "written": (WRITTEN, "Inbox/W2.md", "Inbox/W.md"),
    }[name]
    async with started(make_vault(_vault())) as vg:
        await vg.indexed()
        changed = await _check(vg, capsys, "execute_plan", plan=plan)  # the confirmation's files == the disk's
        assert final in changed and first not in changed, sorted(changed)
        assert (vg.root / final).is_file() and not (vg.root / first).exists()


async def test_a_reference_the_check_cannot_know_stays_unresolved(make_vault: Callable[..., Path]) -> None:
    found = {  # the search runs after the create: its result is known only at run time
        "goal": "file what a search finds",
        "steps": [
            {"id": "mk", "tool": "create_note", "args": {"path": "Inbox/Publishing hub", "content": "# Hub\n"}},
            {"id": "find", "tool": "search_text", "args": {"query": "Hub"}, "dependsOn": ["mk"]},
            {"id": "mv", "tool": "move_note", "args": {"path": "$steps.find.items[0].path", "new_path": "Archive/"}},
        ],
    }
    whole = {  # the create's whole result, no path: the run tells
        "goal": "a note quoting another's result",
        "steps": [
            {"id": "mk", "tool": "create_note", "args": {"path": "Inbox/Publishing hub", "content": "# Hub\n"}},
            {"id": "log", "tool": "create_note", "args": {"path": "Log", "content": "${steps.mk.created}"}},
        ],
    }
    async with started(make_vault(_vault())) as vg:
        checked = await vg.ok("validate_plan", plan=found)
        assert checked["valid"], checked["problems"]
        assert "mv" in checked["effects"]["unresolved"]
        assert checked["effects"]["files_created"] == ["Inbox/Publishing hub.md"]
        assert checked["effects"]["files_moved"] == []
        checked = await vg.ok("validate_plan", plan=whole)
        assert checked["valid"], checked["problems"]
        assert checked["effects"]["unresolved"] == ["log"]
        assert sorted(checked["effects"]["files_created"]) == ["Inbox/Publishing hub.md", "Log.md"]
