"""A plan that renames a note, then edits it by its old path, over HTTP with the SDK client:
validate_plan foresees the edit's `note_not_found` and execute_plan refuses the plan whole
(nothing renamed). Before, the plan was passed as valid (the edit previewed as creating the
note) and the run renamed the note, then failed at the edit. A plan making folders that differ
only in letter case (E7 s85) is refused up front the same way, with the run's own error (it was
valid, and the run failed its second step); its effects no longer promise the twin folder (E8
s86). A patch_note of a section of a note not there is told with the call's note_not_found, its
details naming the note, not 'Nowhere#Goals.md' (E8 s86)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

PLAN = {
    "goal": "rename, then tag by the old path",
    "steps": [
        {"id": "r", "tool": "rename_note", "args": {"path": "Proj/B", "new_path": "B2"}},
        {"id": "t", "tool": "add_tags", "args": {"path": "Proj/B", "tags": ["done"]}, "dependsOn": ["r"]},
    ],
}

TWINS = {
    "goal": "a folder, then a note in its case twin",
    "steps": [
        {"id": "a", "tool": "create_folder", "args": {"path": "Fold"}},
        {"id": "b", "tool": "create_note", "args": {"path": "fold/n", "content": "n"}},
    ],
}

SECTION = {
    "goal": "patch a section of a note not there",
    "steps": [{"id": "p", "tool": "patch_note", "args": {"path": "Proj/Nowhere#Goals", "content": "x"}}],
}


async def test_an_edit_by_a_path_an_earlier_step_renamed_is_refused_up_front(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault({"Proj/B.md": "# B\n"})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            checked = await ok(c, "validate_plan", plan=PLAN)
            assert not checked["valid"] and checked["effects"]["files_created"] == []
            [failure] = checked["effects"]["failures"]
            assert (failure["step"], failure["code"], failure["path"]) == ("t", "note_not_found", "Proj/B.md")
            refused = await error(c, "execute_plan", plan=PLAN)
            assert refused["code"] == "validation_error"
            assert [p["code"] for p in refused["details"]["problems"]] == ["note_not_found"]
            assert h.read("Proj/B.md") == "# B\n" and not (h.root / "Proj/B2.md").exists()
            twins = await ok(c, "validate_plan", plan=TWINS)
            [problem] = twins["problems"]
            assert (problem["step"], problem["code"]) == ("b", "already_exists"), problem
            assert problem["message"] == "'Fold' already exists: 'fold/n.md' differs from it only in letter case"
            assert problem["details"] == {"path": "Fold", "new_path": "fold/n.md"} and problem["hint"], problem
            made = twins["effects"]  # no 'fold' promised beside 'Fold' (E8 s86): step b is a failure
            assert (made["folders_created"], made["files_created"]) == (["Fold"], []), made
            assert [(f["step"], f["path"]) for f in made["failures"]] == [("b", "fold/n.md")], made
            refused = await error(c, "execute_plan", plan=TWINS)
            assert refused["code"] == "validation_error" and refused["details"]["problems"] == twins["problems"]
            assert not (h.root / "Fold").exists() and not (h.root / "fold").exists()
            section = await ok(c, "validate_plan", plan=SECTION)  # told as the call answers (E8 s86)
            direct = await error(c, "patch_note", path="Proj/Nowhere#Goals", content="x")
            [problem] = section["problems"]
            assert (problem["code"], problem["details"], problem["hint"]) == (
                direct["code"],
                direct["details"],
                direct["hint"],
            ), (problem, direct)
            assert direct["details"]["path"] == "Proj/Nowhere.md" and direct["message"] in problem["message"]
