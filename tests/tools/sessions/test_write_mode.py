"""The per-vault `write_mode`, for every mutating tool of the registry.

`SAMPLES` holds valid arguments for each mutating tool on the default test vault; the first test
fails when the registry has a mutating tool without a sample, so a tool added later is tested
here too (and the mode is applied in the dispatch chain, not by the tools themselves).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

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
    "move_note": {"path": "Welcome", "new_path": "Archive/Welcome"},
    "rename_note": {"path": "Welcome", "new_path": "Hello"},
    "rewrite_links": {"old_target": "Welcome", "new_target": "Projects/Plan"},
    "set_properties": {"path": "Welcome", "properties": {"a": 1}},
    "delete_property": {"path": "Projects/Plan", "key": "status"},
    "add_tags": {"path": "Welcome", "tags": ["t"]},
    "remove_tags": {"path": "Welcome", "tags": ["start"]},
    "rename_tag": {"old": "intro", "new": "hello"},
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
    "set_task_status": {"path": "Welcome", "line": 1, "status": "x", "expected_text": "- [ ] a task"},
    "create_periodic_note": {"period": "daily"},
    "append_to_periodic_note": {"content": "x"},
    "apply_template": {"template": "Daily", "path": "New from template"},
}
MUTATING = sorted(
    s.name for s in build_registry() if s.mutating and "facade" not in s.tags
)  # a facade call: its tool is gated


def test_every_mutating_tool_has_a_sample() -> None:
    assert sorted(SAMPLES) == MUTATING


def _vault(root: Path, mode: str) -> dict[str, Any]:
    return {"vaults": [{"id": "main", "path": root, "write_mode": mode}]}


def _prepare(root: Path, tool: str) -> None:
    """What a sample needs beyond the default vault: a bookmark to remove."""
    if tool == "remove_bookmark":
        (root / ".obsidian").mkdir(exist_ok=True)
        (root / ".obsidian" / "bookmarks.json").write_text('{"items": [{"type": "file", "path": "Welcome.md"}]}')


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("tool", MUTATING)
async def test_dry_run_mode_changes_nothing(make_vault: Callable[..., Path], tool: str) -> None:
    root = make_vault()
    _prepare(root, tool)
    async with started(root, **_vault(root, "dry-run")) as vg:
        before = _files(root)
        result = await vg.call(tool, **SAMPLES[tool])
        assert result.structured is not None
        if result.is_error:
            assert result.structured["error"]["code"] in ("read_only_mode", "not_found"), result.structured
        else:
            assert result.structured.get("dry_run") is True or result.structured.get("status") == "dry-run"
        assert _files(root) == before


@pytest.mark.parametrize("tool", MUTATING)
async def test_confirm_mode_asks_a_human_for_every_change(make_vault: Callable[..., Path], tool: str) -> None:
    root = make_vault()
    _prepare(root, tool)
    async with started(root, **_vault(root, "confirm")) as vg:
        before = _files(root)
        result = await vg.call(tool, **SAMPLES[tool])
        assert result.is_error and result.structured is not None
        assert result.structured["error"]["code"] in ("elicit_required", "not_found"), result.structured
        assert _files(root) == before


async def test_allow_mode_and_a_confirmed_plan_in_confirm_mode(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    async with started(root, **_vault(root, "confirm")) as vg:
        run = await vg.confirmed("execute_plan", plan=PLAN)  # one confirmation covers its steps
        assert run["status"] == "done" and (root / "Made.md").is_file()
    async with started(root) as vg:
        await vg.ok("append_note", path="Welcome", content="allowed")
