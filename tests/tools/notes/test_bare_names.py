"""One rule for note names in every tool (issue 41, item 4): a name that resolves to an existing
note is that note — for reading, writing, creating (`already_exists` naming it), tagging, moving —
so `File recovery` never becomes a second, root-level `File recovery.md` that then captures every
`[[File recovery]]` link. The registry's tools with a `path` argument are each given the bare name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.registry import build_registry
from tests.conftest import Harness, started

NOTE = "Plugins/File recovery.md"
VAULT = {
    NOTE: "---\ntags: [core]\nstatus: on\n---\n# File recovery\n\n## Use\n\n- [ ] try it\n\ntext\n",
    "Help.md": "# Help\n\nSee [[File recovery]].\n",
    "Templates/T.md": "template text\n",
    ".obsidian/bookmarks.json": '{"items": [{"type": "file", "ctime": 1, "path": "Plugins/File recovery.md"}]}',
}
# The other arguments each tool needs; a tool whose `path` is not a note is listed in NOT_A_NOTE.
EXTRA: dict[str, dict[str, Any]] = {
    "write_note": {"content": "x\n", "mode": "overwrite"},
    "append_note": {"content": "x"},
    "prepend_note": {"content": "x"},
    "patch_note": {"content": "x", "heading": ["File recovery", "Use"]},
    "copy_note": {"new_path": "Copies/FR.md"},
    "move_note": {"new_path": "Plugins/Core/File recovery.md"},
    "rename_note": {"new_path": "File recovery 2"},
    "set_properties": {"properties": {"status": "off"}},
    "delete_property": {"key": "status"},
    "add_tags": {"tags": ["more"]},
    "remove_tags": {"tags": ["core"]},
    "add_bookmark": {"type": "file"},
    "set_task_status": {"line": 10, "status": "x", "expected_text": "try it"},
    "apply_template": {"template": "Templates/T.md"},
    "eval_dataview_field": {"field": "file.path"},
    "write_excalidraw": {"add": [{"type": "text", "x": 0, "y": 0, "text": "x"}]},  # not a drawing: refused, named
}
NOT_A_NOTE = {
    "create_folder": "its path is a folder to create",
    "read_canvas": "its path is a .canvas file",
    "write_canvas": "its path is a .canvas file",
    "read_attachment": "its path is an attachment",
    "ocr_attachment": "its path is an image or PDF",
    "inspect_acl": "its path is any vault path, not resolved",
    "create_note": "creating is checked on its own below",
}
WITH_PATH = sorted(
    name for name in (s.name for s in build_registry()) if "path" in build_registry().get(name).input_model.model_fields
)  # type: ignore[union-attr]


NAME_ERRORS = {"note_not_found", "not_a_note", "ambiguous_note", "path_invalid"}  # already_exists must name it


async def _confirmed_or_ok(vg: Harness, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The call's result; an error for another reason than the name (the tool cannot work on
    this note, semantic search is off here) must still name the note it resolved, if any."""
    first = await vg.call(tool, **args)
    assert first.structured is not None
    if first.is_error and first.structured["error"]["code"] == "elicit_required":
        return await vg.confirmed(tool, **args)
    if first.is_error:
        error = first.structured["error"]
        assert error["code"] not in NAME_ERRORS, (tool, error)
        assert error.get("details", {}).get("path", NOTE) == NOTE, (tool, error)
        return {}
    return first.structured


@pytest.mark.parametrize("tool", [t for t in WITH_PATH if t not in NOT_A_NOTE])
async def test_a_bare_name_given_to_a_tool_is_the_note_of_that_name(make_vault: Callable[..., Path], tool: str) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        out = await _confirmed_or_ok(vg, tool, {"path": "File recovery", **EXTRA.get(tool, {})})
        assert not (vg.root / "File recovery.md").exists(), tool  # no second note at the root
        named = {v for k, v in out.items() if k in ("path", "old_path", "source") and isinstance(v, str)}
        if tool not in ("move_note", "rename_note", "copy_note", "delete_note"):
            assert not named or NOTE in named or out.get("path") == NOTE, (tool, out)
        elif tool == "copy_note":
            assert (vg.root / NOTE).is_file() and (vg.root / "Copies/FR.md").is_file()
        else:
            assert NOTE in named, (tool, out)


async def test_creating_a_name_that_names_an_existing_note_is_already_exists_naming_it(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        before = vg.snapshot()
        for tool, args in (
            ("write_note", {"content": "new\n"}),  # mode create, the default
            ("create_note", {"content": "new\n"}),
        ):
            error = await vg.err(tool, "already_exists", path="File recovery", **args)
            assert error["details"]["path"] == NOTE, error
            error = await vg.err(tool, "already_exists", path="[[file recovery]]", **args)
            assert error["details"]["path"] == NOTE
        assert vg.snapshot() == before
        unique = await vg.ok("create_note", path="File recovery", content="new\n", if_exists="unique")
        assert unique["path"] == "Plugins/File recovery 1.md"
        beside = await vg.ok("create_note", path="Plugins", content="a note beside the folder\n")
        assert beside["path"] == "Plugins.md"  # a folder of that name is no note: the path as written
        fresh = await vg.ok("write_note", path="Brand new", content="x\n")
        assert fresh["path"] == "Brand new.md" and fresh["created"]


async def test_bulk_create_notes_follows_the_same_rule_for_names(make_vault: Callable[..., Path]) -> None:
    """bulk_create_notes resolves every name as create_note does: a name of an existing note is
    already_exists naming that note, and the whole call changes nothing; new names are created
    at the path as written."""
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        before = vg.snapshot()
        notes = [{"path": "Fresh/One", "content": "1\n"}, {"path": "File recovery", "content": "new\n"}]
        error = await vg.err("bulk_create_notes", "already_exists", notes=notes)
        assert error["details"]["path"] == NOTE, error
        error = await vg.err("bulk_create_notes", "already_exists", notes=[{"path": "[[file recovery]]"}])
        assert error["details"]["path"] == NOTE, error
        assert vg.snapshot() == before
        out = await vg.ok("bulk_create_notes", notes=[{"path": "Fresh/One", "content": "1\n"}, {"path": "Two"}])
        assert [i["path"] for i in out["items"]] == ["Fresh/One.md", "Two.md"]
        assert not (vg.root / "File recovery.md").exists()
