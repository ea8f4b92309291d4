"""Every tool that takes a note by its path, given the bare name of a note named with '|' or '#'
(`Odd|pipe` for `Themes/Odd|pipe.md`, `Odd#hash` for `Themes/Odd#hash.md`), finds that note, as
`Plain` finds `Themes/Plain.md` and as the name with its folder did since 88499356 / 40dfc909.

Before (A2 s83 item 1), the bare name was cut where a link cuts it: `Odd|pipe` was note 'Odd'
shown as 'pipe', `Odd#hash` note 'Odd' heading 'hash' — note_not_found (or path_invalid 'reserved
character' where a note may be created) though the index listed the note. The note named so wins
over the cut, as the file on disk does for the path with its folder; a section after a later '#'
is kept (`Odd#hash#Colors`, `Odd|pipe#Colors`); `Minimal|itself` still names Minimal shown so."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, snapshot, started

BODY = "---\nx: 1\ntags: [t]\n---\n# {title}\n\n## Colors\n- [ ] paint\nred as in Minimal\n"
PIPE = "Themes/Odd|pipe.md"
HASH = "Themes/Odd#hash.md"
ODD = {"Odd#hash": HASH} | ({} if os.name == "nt" else {"Odd|pipe": PIPE})  # no '|' in Windows names
FILES = {
    **{path: BODY.format(title=name) for name, path in ODD.items()},
    "Themes/Minimal.md": "# Minimal\n",
    "Odd.md": "# Odd\n\n## hash\nthe other note\n",  # what the cut names: never taken instead
    "Other.md": "# Other\n[p](Themes/Odd%7Cpipe.md) [h](Themes/Odd%23hash.md)\n",
    "Templates/T.md": "# From a template\n",
}

# (tool, the argument taking the note, other arguments); each call answers about the note.
READS: list[tuple[str, str, dict[str, Any]]] = [
    ("read_note", "path", {}),
    ("note_info", "path", {}),
    ("get_outline", "path", {}),
    ("get_properties", "path", {}),
    ("suggest_links", "path", {}),
    ("list_tasks", "note", {}),
    ("list_attachments", "for_note", {}),
    ("list_attachments", "embedded_by", {}),
    ("search_dql", "origin", {"query": "LIST"}),
    ("eval_dataview_field", "path", {"field": "file.name"}),
    ("tasks_filter", "file", {"query": "not done"}),
    ("query_base", "this", {"yaml": "views:\n  - type: table\n"}),
    ("get_backlinks", "path", {}),
    ("get_outlinks", "path", {}),
    ("graph_neighbors", "path", {}),
    ("shortest_path", "source", {"target": "Other"}),
    ("shortest_path", "target", {"source": "Other"}),
    ("inspect_acl", "path", {"op": "read"}),
    ("rewrite_links", "old_target", {"new_target": "Minimal"}),  # a preview
    ("rewrite_links", "new_target", {"old_target": "Minimal"}),
]
# In order, on one vault: each leaves the note where the next finds it.
WRITES: list[tuple[str, str, dict[str, Any]]] = [
    ("append_note", "path", {"content": "more"}),
    ("prepend_note", "path", {"content": "first"}),
    ("patch_note", "path", {"content": "x", "heading": "Colors", "position": "append"}),
    ("set_properties", "path", {"properties": {"y": 2}}),
    ("delete_property", "path", {"key": "x"}),
    ("add_tags", "path", {"tags": ["new"]}),
    ("remove_tags", "path", {"tags": ["t"]}),
    ("set_task_status", "path", {"line": 9, "status": "done", "expected_text": "paint"}),
    ("add_bookmark", "path", {"type": "file"}),
    ("remove_bookmark", "path", {}),
    ("apply_template", "path", {"template": "T"}),
    ("copy_note", "path", {"new_path": "Copies/Copy"}),
]
CONFIRMED: list[tuple[str, str, dict[str, Any]]] = [
    ("replace_text", "path", {"find": "red", "replace": "green", "dry_run": False}),
    ("write_note", "path", {"content": "# Written\n", "mode": "overwrite"}),
]


async def _answer(vg: Harness, tool: str, args: dict[str, Any], confirm: bool) -> dict[str, Any]:
    if confirm:
        return await vg.confirmed(tool, **args)
    result = await vg.call(tool, **args)
    assert result.structured is not None
    assert not result.is_error, (tool, args, result.structured)
    return result.structured


def _mentions(answer: Any, path: str) -> bool:
    """Whether the answer names the note: its path somewhere in it (as a value or in a text)."""
    return path in str(answer) or path.replace("|", "%7C").replace("#", "%23") in str(answer)


@pytest.mark.parametrize("name", sorted(ODD))
async def test_every_read_tool_finds_the_note_by_its_bare_name(make_vault: Callable[..., Path], name: str) -> None:
    """And move_note, last."""
    root = make_vault(FILES)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        path = ODD[name]
        for tool, field, more in READS:
            answer = await _answer(vg, tool, {field: name, **more}, False)
            if tool == "suggest_links":  # the mention of Minimal in the note (Odd.md has none)
                assert "Themes/Minimal.md" in str(answer), (tool, answer)
            else:
                assert _mentions(answer, path), (tool, field, answer)
        [item] = (await vg.ok("read_notes", paths=[name]))["items"]
        assert item["path"] == path, item
        for section in (f"{name}#Colors", f"{path[:-3]}#Colors"):
            read = await vg.ok("read_note", path=section)
            assert read["path"] == path and read["content"].startswith("## Colors"), (section, read)
        assert (await vg.ok("read_note", path="Themes/Minimal|itself"))["path"] == "Themes/Minimal.md"
        assert (await vg.ok("read_note", path="[[Odd#hash]]"))["content"].startswith("## hash")  # a link cuts
        await vg.confirmed("move_note", path=name, new_path="Moved/Moved")  # a new name holds neither '#' nor '|'
        assert (root / "Moved/Moved.md").is_file() and not (root / path).exists()


@pytest.mark.parametrize("name", sorted(ODD))
async def test_every_write_tool_finds_the_note_by_its_bare_name(make_vault: Callable[..., Path], name: str) -> None:
    root = make_vault(FILES)
    path = ODD[name]
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        for tool, field, more, confirm in [(*w, False) for w in WRITES] + [(*c, True) for c in CONFIRMED]:
            await _answer(vg, tool, {field: name, **more}, confirm)
            await vg.settled()
        assert vg.read(path) == "# Written\n"
        copy = (root / "Copies/Copy.md").read_text(encoding="utf-8")
        for edit in ("more", "first", "y: 2", "new", "[x] paint", "From a template"):
            assert edit in copy, (edit, copy)
        assert "x: 1" not in copy and "- t\n" not in copy and "[t]" not in copy, copy
        assert (root / "Odd.md").read_text(encoding="utf-8") == FILES["Odd.md"]
        assert (await vg.ok("delete_note", path=name))["path"] == path and not (root / path).exists()


@pytest.mark.parametrize("name", sorted(ODD))
async def test_a_create_by_the_bare_name_is_already_exists_naming_the_note(
    make_vault: Callable[..., Path], name: str
) -> None:
    """As a create of 'Plain' is; bulk_create_notes answered path_invalid (the name taken as a new
    one) where no note had the name the cut leaves ('Odd')."""
    root = make_vault({k: v for k, v in FILES.items() if k != "Odd.md"})
    before = snapshot(root)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        for tool, more in (("create_note", {}), ("write_note", {"mode": "create"})):
            refused = await vg.err(tool, "already_exists", path=name, content="x", **more)
            assert refused["details"]["path"] == ODD[name], (tool, refused)
        refused = await vg.err("bulk_create_notes", "already_exists", notes=[{"path": name, "content": "x"}])
        assert refused["details"]["path"] == ODD[name], refused
    assert snapshot(root) == before
