"""A confirmed call whose preview found no file at its target creates it, never replaces one.

A call asking a human for another reason than an overwrite (a vault in `write_mode = "confirm"`,
a plan step, bulk_create_notes above its count) may name a path with nothing there: the human
approves making a file. A file another program creates between that preview and the write is
left as it is (`already_exists` or `conflict`), never replaced unseen
(`service.tools.notes.targets.previewed_absent`). The other program's file lands inside the
file layer's write (or copy), right before the server's own, through the dispatch chain with a
minted token (also a step of an approved plan) and over real HTTP with the SDK client (the human
approves through elicitation).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from tests.conftest import Harness, e2e, started

VAULT = {"Notes/Src.md": "# Source\n"}
THEIRS = "# Theirs\n\nwritten by another program after the preview\n"
THEIR_CANVAS = '{"nodes":[{"id":"theirs","type":"text","x":0,"y":0,"width":9,"height":9,"text":"theirs"}],"edges":[]}\n'


def _node(ident: str) -> dict[str, Any]:
    return {"id": ident, "type": "text", "x": 0, "y": 0, "width": 100, "height": 50, "text": ident}


def _rect(ident: str) -> dict[str, Any]:
    return {"id": ident, "type": "rectangle", "x": 0, "y": 0, "width": 10, "height": 10}


# (tool, arguments naming a path with no file, the file the call would make)
CASES: list[tuple[str, dict[str, Any], str]] = [
    ("write_note", {"path": "New/W", "content": "mine\n", "mode": "overwrite"}, "New/W.md"),
    ("create_note", {"path": "New/C", "content": "mine\n", "if_exists": "overwrite"}, "New/C.md"),
    ("bulk_create_notes", {"notes": [{"path": "New/B", "content": "mine\n"}], "overwrite": True}, "New/B.md"),
    ("copy_note", {"path": "Notes/Src", "new_path": "New/P", "overwrite": True}, "New/P.md"),
    ("write_canvas", {"path": "New/Board.canvas", "nodes": [_node("mine")]}, "New/Board.canvas"),
    ("write_excalidraw", {"path": "New/Plan.excalidraw.md", "elements": [_rect("minerect")]}, "New/Plan.excalidraw.md"),
]


def _confirming(root: Path) -> dict[str, Any]:
    """A vault whose every change asks a human (the overwrite itself asks nothing: no file)."""
    return {"vaults": [{"id": "main", "path": root, "write_mode": "confirm"}]}


async def _theirs(vg: Harness, rel: str) -> str:
    """What the other program writes at `rel`: a note, a canvas, a drawing (made beside it once)."""
    if rel.endswith(".canvas"):
        return THEIR_CANVAS
    if rel.endswith(".excalidraw.md"):
        other = vg.root / "Drawings/Theirs.excalidraw.md"
        if not other.exists():
            args = {"path": "Drawings/Theirs.excalidraw.md", "elements": [_rect("theirrect")], "compressed": False}
            await vg.confirmed("write_excalidraw", **args)
        return other.read_text()
    return THEIRS


async def _made_at_the_write(vg: Harness, rel: str) -> str:
    """The next write (or copy) of the vault finds `rel` just made by another program; returns
    the bytes it wrote."""
    text = await _theirs(vg, rel)
    files = vg.app.vaults["main"].files
    for name in ("write", "copy"):
        real = getattr(files, name)

        async def made_first(*args: Any, _real: Any = real, **kw: Any) -> Any:
            (vg.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (vg.root / rel).write_text(text)
            del files.write, files.copy  # once: the instance's own methods again
            return await _real(*args, **kw)

        setattr(files, name, made_first)
    return text


@pytest.mark.parametrize(("tool", "args", "rel"), CASES, ids=[c[0] for c in CASES])
async def test_a_file_made_after_the_preview_found_none_is_not_replaced(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any], rel: str
) -> None:
    root = make_vault(VAULT)
    async with started(root, **_confirming(root)) as vg:
        token = await vg.token_for(tool, **args)
        theirs = await _made_at_the_write(vg, rel)
        result = await vg.call(tool, **args, elicit_token=token)
        assert result.is_error and result.structured is not None, (tool, result.structured)
        assert result.structured["error"]["code"] in ("already_exists", "conflict"), (tool, result.structured)
        assert (root / rel).read_text() == theirs, tool  # the other program's file stays


async def test_a_bulk_create_above_its_count_keeps_a_note_made_after_the_preview(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(VAULT)
    notes = [{"path": f"New/N{i}", "content": "mine\n"} for i in range(3)]
    args = {"notes": notes, "overwrite": True}
    async with started(root, notes={"bulk_confirm_above": 2}) as vg:
        token = await vg.token_for("bulk_create_notes", **args)
        await _made_at_the_write(vg, "New/N0.md")
        await vg.err("bulk_create_notes", "already_exists", **args, elicit_token=token)
        assert (root / "New/N0.md").read_text() == THEIRS
        assert not (root / "New/N1.md").exists()  # all or nothing


async def test_a_plan_step_keeps_a_note_made_after_the_plan_was_approved(make_vault: Callable[..., Path]) -> None:
    """A step of an approved plan proceeds as confirmed (`confirmed = "plan"`): its preview found
    no note, so it only creates one."""
    root = make_vault(VAULT)
    step = {"path": "New/W", "content": "mine\n", "mode": "overwrite"}
    plan = {"goal": "write one note", "steps": [{"id": "w", "tool": "write_note", "args": step}]}
    async with started(root, **_confirming(root)) as vg:
        token = await vg.token_for("execute_plan", plan=plan)
        theirs = await _made_at_the_write(vg, "New/W.md")
        run = await vg.ok("execute_plan", plan=plan, elicit_token=token)
        [done] = run["steps"]
        assert done["status"] == "failed" and done["errors"][0]["code"] == "already_exists", run
        assert (root / "New/W.md").read_text() == theirs


async def test_a_confirmed_new_file_is_still_made(make_vault: Callable[..., Path]) -> None:
    """With nothing made meanwhile, each confirmed call creates its file (create-only writes)."""
    root = make_vault(VAULT)
    async with started(root, **_confirming(root)) as vg:
        for tool, args, rel in CASES:
            await vg.confirmed(tool, **args)
            assert (root / rel).read_text() != THEIRS and (root / rel).stat().st_size > 0, tool


async def test_a_new_file_approved_over_http_keeps_a_file_made_before_the_write(
    make_vault: Callable[..., Path],
) -> None:
    async def accept(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"confirm": True})

    root = make_vault(VAULT)
    async with (
        e2e(root, **_confirming(root)) as (url, vg),
        Client(url, mode="legacy", elicitation_callback=accept) as client,
    ):
        for tool, args, rel in CASES:
            theirs = await _made_at_the_write(vg, rel)
            result = await client.call_tool(tool, args)
            assert result.is_error, (tool, result)
            assert result.structured_content["error"]["code"] in ("already_exists", "conflict"), (tool, result)
            assert (root / rel).read_text() == theirs, tool
