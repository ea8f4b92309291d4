"""The per-vault `write_mode`, for every mutating tool of the registry.

`SAMPLES` holds valid arguments for each mutating tool on the default test vault; the first test
fails when the registry has a mutating tool without a sample, so a tool added later is tested
here too (and the mode is applied in the dispatch chain, not by the tools themselves).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from service.tools.registry import build_registry
from tests.conftest import started

PLAN = {"goal": "g", "steps": [{"id": "a", "tool": "create_note", "args": {"path": "Made"}}]}
SAMPLES: dict[str, dict[str, Any]] = {
    "create_note": {"path": "New"},
    "write_note": {"path": "Welcome", "content": "x", "mode": "overwrite"},
    "append_note": {"path": "Welcome", "content": "x"},
    "prepend_note": {"path": "Welcome", "content": "x"},
    "patch_note": {"path": "Projects/Plan", "heading": ["Plan", "Goals"], "content": "x"},
    "delete_note": {"path": "Welcome"},
    "copy_note": {"path": "Welcome", "new_path": "Copy"},
    "create_folder": {"path": "Folder"},
    "bulk_create_notes": {"notes": [{"path": "B1", "content": "x"}]},
    "create_entities": {"entities": [{"name": "Bob", "entityType": "person", "observations": ["Likes tea"]}]},
    "add_observations": {"observations": [{"entityName": "Ann", "contents": ["Likes coffee"]}]},
    "create_relations": {"relations": [{"from": "Ann", "to": "Welcome", "relationType": "wrote"}]},
    "delete_entities": {"entityNames": ["Ann"]},
    "delete_observations": {"deletions": [{"entityName": "Ann", "observations": ["Likes tea"]}]},
    "delete_relations": {"relations": [{"from": "Ann", "to": "Welcome", "relationType": "wrote"}]},
    "memory_store": {"key": "Rent", "value": "Due on the 3rd"},
    "capture": {"text": "Call the plumber"},
    "process_capture": {"capture_id": "cap-0123456789", "action": "discard"},
    "supersede_observation": {"entityName": "Ann", "observation": "^m-1", "superseded_by": "Likes coffee"},
    "merge_observations": {"entityName": "Ann", "mergedName": "Ann Lees"},
    "run_consolidation": {"wait": True},
    "dismiss_finding": {"finding_id": "f-0123456789ab"},
    "apply_finding": {"finding_id": "f-0123456789ab"},
    "record_experience": {"kind": "worked", "text": "regex search is fast"},
    "promote_experience": {"experience_id": "exp-0123456789ab", "entity": "Ann"},
    "move_note": {"path": "Welcome", "new_path": "Archive/Welcome"},
    "rename_note": {"path": "Welcome", "new_path": "Hello"},
    "rewrite_links": {"old_target": "Welcome", "new_target": "Projects/Plan"},
    "set_properties": {"path": "Welcome", "properties": {"a": 1}},
    "delete_property": {"path": "Projects/Plan", "key": "status"},
    "add_tags": {"path": "Welcome", "tags": ["t"]},
    "remove_tags": {"path": "Welcome", "tags": ["start"]},
    "rename_tag": {"old": "intro", "new": "hello"},
    "replace_text": {"find": "Hello", "replace": "Hi", "dry_run": False},
    "reindex": {"mode": "sync"},
    "reload_vault": {},
    "reset_vault_cache": {},
    "start_session": {"name": "s"},
    "end_session": {},
    "execute_plan": {"plan": PLAN},
    "cancel_plan": {"run_id": "r"},
    "undo_last_plan": {},
    "save_macro": {"name": "m", "plan": PLAN},
    "run_macro": {"name": "m"},
    "delete_macro": {"name": "m"},
    "add_bookmark": {"type": "file", "path": "Welcome.md"},
    "remove_bookmark": {"path": "Welcome.md"},
    "write_canvas": {
        "path": "Board.canvas",
        "nodes": [{"id": "a", "type": "text", "text": "hi", "x": 0, "y": 0, "width": 10, "height": 10}],
    },
    "write_excalidraw": {"path": "Sketch.excalidraw.md", "add": [{"type": "text", "x": 0, "y": 0, "text": "hi"}]},
    "execute_command": {"command_id": "editor:save-file"},  # no bridge here: refused before anyone is asked
    "execute_template": {"template": "Welcome", "folder": "Made"},
    "trigger_quickadd": {"choice": "Log"},
    # a task the note holds (line 1 of Welcome holds none: the call, and now its preview, refuse it)
    "set_task_status": {
        "path": "Daily/2024-01-01",
        "line": 3,
        "status": "x",
        "expected_text": "write tests 📅 2024-01-02",
    },
    "create_periodic_note": {"period": "daily", "date": "2026-01-05"},
    "append_to_periodic_note": {"content": "x", "date": "2026-01-05"},
    "apply_template": {"template": "Daily", "path": "New from template"},
}
# What the dry-run-mode preview of each tool without a dry run of its own must list: (effects field, item).
EXPECTED: dict[str, tuple[str, str]] = {
    "create_note": ("files_created", "New.md"),
    "write_note": ("files_modified", "Welcome.md"),
    "append_note": ("files_modified", "Welcome.md"),
    "prepend_note": ("files_modified", "Welcome.md"),
    "patch_note": ("files_modified", "Projects/Plan.md"),
    "delete_note": ("files_deleted", "Welcome.md"),
    "copy_note": ("files_created", "Copy.md"),
    "create_folder": ("folders_created", "Folder"),
    "bulk_create_notes": ("files_created", "B1.md"),
    "set_properties": ("files_modified", "Welcome.md"),
    "delete_property": ("files_modified", "Projects/Plan.md"),
    "add_tags": ("files_modified", "Welcome.md"),
    "remove_tags": ("files_modified", "Welcome.md"),
    "reindex": ("state_changes", "call: reindex rebuilds the vault's index"),
    "reload_vault": ("state_changes", "call: reload_vault reloads the vault's settings and index"),
    "reset_vault_cache": ("state_changes", "call: reset_vault_cache deletes and rebuilds the vault's index cache"),
    "start_session": ("state_changes", "call: start_session opens an agent session"),
    "end_session": ("state_changes", "call: end_session ends the agent session"),
    "cancel_plan": ("state_changes", "call: cancel_plan stops a background plan run"),
    "save_macro": ("state_changes", "call: save_macro saves a macro"),
    "delete_macro": ("state_changes", "call: delete_macro deletes a macro"),
    "add_bookmark": ("files_created", ".obsidian/bookmarks.json"),
    "remove_bookmark": ("files_modified", ".obsidian/bookmarks.json"),
    "write_canvas": ("files_created", "Board.canvas"),
    # the drawing a bare name means is found at run time (a note address): the preview names the call
    "write_excalidraw": ("bulk_changes", "call: write_excalidraw"),
    "execute_command": ("commands", "call: execute_command"),
    "execute_template": ("commands", "call: execute_template"),
    "trigger_quickadd": ("commands", "call: trigger_quickadd"),
    "set_task_status": ("files_modified", "Daily/2024-01-01.md"),
    "create_periodic_note": ("files_created", "2026-01-05.md"),
    "append_to_periodic_note": ("files_created", "2026-01-05.md"),
    "apply_template": ("files_created", "New from template.md"),
    # memory tools: the entity notes their arguments name (Memory/Ann.md exists: `_prepare`)
    "create_entities": ("files_created", "Memory/Bob.md"),
    "add_observations": ("files_modified", "Memory/Ann.md"),
    "create_relations": ("files_modified", "Memory/Ann.md"),
    "delete_entities": ("files_deleted", "Memory/Ann.md"),
    "delete_observations": ("files_modified", "Memory/Ann.md"),
    "delete_relations": ("files_modified", "Memory/Ann.md"),
    "memory_store": ("files_created", "Memory/Rent.md"),
    "capture": ("files_created", "Memory/Inbox.md"),
    "process_capture": ("files_modified", "Memory/Inbox.md"),  # the inbox it marks (the capture's: `_made`)
    "supersede_observation": ("files_modified", "Memory/Ann.md"),
    "merge_observations": ("files_modified", "Memory/Ann.md"),  # the merged one is only read
    "run_consolidation": ("bulk_changes", "call: run_consolidation"),
    "dismiss_finding": ("bulk_changes", "call: dismiss_finding"),
    "record_experience": ("bulk_changes", "call: record_experience"),
    "promote_experience": ("files_modified", "Memory/Ann.md"),
}
MUTATING = sorted(
    s.name for s in build_registry() if s.mutating and "facade" not in s.tags
)  # a facade call: its tool is gated


def test_every_mutating_tool_has_a_sample() -> None:
    assert sorted(SAMPLES) == MUTATING
    previewed = sorted(s.name for s in build_registry() if s.previewed)
    assert sorted(EXPECTED) == previewed  # every tool without a dry run of its own: its expected preview


def _vault(root: Path, mode: str) -> dict[str, Any]:
    return {"vaults": [{"id": "main", "path": root, "write_mode": mode}]}


def _prepare(root: Path, tool: str) -> None:
    """What a sample needs beyond the default vault: a bookmark to remove, a memory entity."""
    (root / "Memory").mkdir(exist_ok=True)
    entity = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Likes tea ^m-1\n\n## Relations\n"
    (root / "Memory" / "Ann.md").write_text(entity + "- wrote [[Welcome]]\n", encoding="utf-8")
    if tool in ("supersede_observation", "merge_observations"):  # a newer fact; an entity to merge
        older = entity.replace("^m-1\n", "^m-1\n- Likes coffee ^m-2\n")
        (root / "Memory" / "Ann.md").write_text(older + "- wrote [[Welcome]]\n", encoding="utf-8")
        lees = entity.replace("Ann", "Ann Lees").replace("Likes tea ^m-1", "Plays chess ^l-1")
        (root / "Memory" / "Ann Lees.md").write_text(lees, encoding="utf-8")
    if tool == "remove_bookmark":
        (root / ".obsidian").mkdir(exist_ok=True)
        (root / ".obsidian" / "bookmarks.json").write_text('{"items": [{"type": "file", "path": "Welcome.md"}]}')


async def _made(root: Path, tool: str) -> dict[str, Any]:
    """`tool`'s sample, naming a capture or an experience made first (in allow mode): a dry-run
    preview of one not there answers the call's own not_found (s79)."""
    args = dict(SAMPLES[tool])
    if tool in ("process_capture", "promote_experience"):
        async with started(root) as vg:
            if tool == "process_capture":
                args["capture_id"] = (await vg.ok("capture", text="Call the plumber"))["id"]
            else:
                made = await vg.ok("record_experience", kind="worked", text="regex search is fast")
                args["experience_id"] = made["experience"]["id"]
    return args


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("tool", MUTATING)
async def test_dry_run_mode_changes_nothing(make_vault: Callable[..., Path], tool: str) -> None:
    root = make_vault()
    _prepare(root, tool)
    args = await _made(root, tool)
    async with started(root, **_vault(root, "dry-run")) as vg:
        before = _files(root)
        result = await vg.call(tool, **args)
        out = result.structured
        assert out is not None
        spec = vg.app.registry.get(tool)
        assert spec is not None
        jsonschema.validate(out, spec.output_schema())  # the preview is one branch of the output schema
        if spec.static_check is not None and spec.domain == "bridges":  # no bridge here: refused as the call is
            assert result.is_error and out["error"]["code"] == "plugin_missing", out
        elif tool in EXPECTED:  # the generic preview, computed from the arguments
            assert not result.is_error, out
            assert out["dry_run"] is True and out["tool"] == tool and out["write_mode"] == "dry-run"
            field, item = EXPECTED[tool]
            assert item in out["effects"][field], out["effects"]
        elif result.is_error:  # the tool's own dry run: no plan run, macro or finding to preview
            own = {"undo_last_plan": "not_found", "run_macro": "not_found", "apply_finding": "note_not_found"}
            assert out["error"]["code"] == own.get(tool), out
        else:
            assert out.get("dry_run") is True or out.get("status") == "dry-run"
        assert _files(root) == before


@pytest.mark.parametrize("tool", MUTATING)
async def test_confirm_mode_asks_a_human_for_every_change(make_vault: Callable[..., Path], tool: str) -> None:
    root = make_vault()
    _prepare(root, tool)
    async with started(root, **_vault(root, "confirm")) as vg:
        before = _files(root)
        result = await vg.call(tool, **SAMPLES[tool])
        assert result.is_error and result.structured is not None
        # plugin_missing: a bridge tool in a vault without a bridge is refused before anyone is asked
        codes = ("elicit_required", "not_found", "plugin_missing")
        assert result.structured["error"]["code"] in codes, result.structured
        assert _files(root) == before


async def test_allow_mode_and_a_confirmed_plan_in_confirm_mode(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    async with started(root, **_vault(root, "confirm")) as vg:
        run = await vg.confirmed("execute_plan", plan=PLAN)  # one confirmation covers its steps
        assert run["status"] == "done" and (root / "Made.md").is_file()
    async with started(root) as vg:
        await vg.ok("append_note", path="Welcome", content="allowed")


async def test_a_preview_refuses_what_the_call_would_refuse(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    vault = {"id": "main", "path": root, "write_mode": "dry-run", "acl": {"write_paths": ["Open/**"]}}
    async with started(root, vaults=[vault]) as vg:
        before = _files(root)
        await vg.err("create_note", "path_invalid", path="../outside")
        await vg.err("create_note", "acl_denied", path="Closed/N")
        out = await vg.ok("create_note", path="Open/N")
        assert out["effects"]["files_created"] == ["Open/N.md"] and out["summary"].startswith("dry-run mode")
        assert _files(root) == before


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("add_tags", {"path": "Plan", "tags": ["t"]}),
        ("append_note", {"path": "[[Plan|the plan]]", "content": "x"}),
        ("delete_property", {"path": "plan", "key": "status"}),
    ],
)
async def test_a_dry_run_preview_names_the_note_a_bare_name_finds(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    root = make_vault()
    async with started(root, **_vault(root, "dry-run")) as vg:
        await vg.indexed()
        effects = (await vg.ok(tool, **args))["effects"]
        assert effects["files_modified"] == ["Projects/Plan.md"], effects
        assert not effects["files_created"], effects
