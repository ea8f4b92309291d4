"""A confirmed overwrite replaces the version the human was shown, or fails with `conflict`.

The confirmation's preview names the note's etag (`overwrite_preview`); an edit landing after
that re-check, just before the write itself, must not be replaced unseen. Every tool whose
confirmation previews an overwrite passes the previewed etag to the file layer
(`service.tools.notes.targets.shown_etag`); write_note, create_note and delete_note are covered in
test_confirm_previews.py. Through the dispatch chain (a minted token) and over real HTTP with the
SDK client (the human approves through elicitation).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from tests.conftest import Harness, e2e, started

VAULT = {
    "Notes/A.md": "# A\n\nthe text a person keeps\n",
    "Notes/Src.md": "# Source\n",
}
DRAWING = "Drawings/Plan.excalidraw.md"


def _node(ident: str) -> dict[str, Any]:
    return {"id": ident, "type": "text", "x": 0, "y": 0, "width": 100, "height": 50, "text": ident}


def _rect(ident: str) -> dict[str, Any]:
    return {"id": ident, "type": "rectangle", "x": 0, "y": 0, "width": 10, "height": 10}


# (tool, arguments of the confirmed overwrite, the file it replaces)
CASES: list[tuple[str, dict[str, Any], str]] = [
    ("write_canvas", {"path": "Board.canvas", "nodes": [_node("new")]}, "Board.canvas"),
    ("write_excalidraw", {"path": DRAWING, "elements": [_rect("newrect1")]}, DRAWING),
    ("bulk_create_notes", {"notes": [{"path": "Notes/A", "content": "replaced\n"}], "overwrite": True}, "Notes/A.md"),
    ("copy_note", {"path": "Notes/Src", "new_path": "Notes/A", "overwrite": True}, "Notes/A.md"),
]


async def _made(vg: Harness) -> None:
    """The canvas and the drawing the calls replace (made through the tools: new ones ask nothing)."""
    await vg.ok("write_canvas", path="Board.canvas", nodes=[_node("old")])
    await vg.ok("write_excalidraw", path=DRAWING, elements=[_rect("oldrect1")], compressed=False)


def _edited(text: str) -> str:
    """A person's edit that leaves the file what it was (a canvas, a drawing, a note)."""
    return text.replace("old", "per") if "old" in text else text + "a line a person wrote meanwhile\n"


def _edit_at_the_write(vg: Harness, monkeypatch: Any, rel: str) -> str:
    """The next write (or copy) of the vault lands a person's edit of `rel` on disk first."""
    edit = _edited((vg.root / rel).read_text())
    files = vg.app.vaults["main"].files
    for name in ("write", "copy"):
        real = getattr(files, name)

        async def edited_first(*args: Any, _real: Any = real, **kw: Any) -> Any:
            (vg.root / rel).write_text(edit)
            monkeypatch.undo()  # once
            return await _real(*args, **kw)

        monkeypatch.setattr(files, name, edited_first)
    return edit


async def test_a_confirmed_overwrite_edited_after_its_check_is_a_conflict(
    make_vault: Callable[..., Path], monkeypatch: Any
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await _made(vg)
        store = vg.app.services.confirmations
        for tool, args, rel in CASES:
            asked = (await vg.err(tool, "elicit_required", **args))["details"]
            assert "etag " in asked["preview"], tool
            [request] = await store.pending(asked["args_hash"], asked["vault"])
            token, _ = await store.mint(request, minted_by="test")
            edit = _edit_at_the_write(vg, monkeypatch, rel)
            await vg.err(tool, "conflict", **args, elicit_token=str(token))
            assert (vg.root / rel).read_text() == edit, tool  # the edit stays


async def test_an_overwrite_approved_over_http_keeps_an_edit_landing_before_the_write(
    make_vault: Callable[..., Path], monkeypatch: Any
) -> None:
    async def accept(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"confirm": True})

    async with e2e(make_vault(VAULT)) as (url, vg):
        await _made(vg)
        async with Client(url, mode="legacy", elicitation_callback=accept) as client:
            for tool, args, rel in CASES:
                edit = _edit_at_the_write(vg, monkeypatch, rel)
                result = await client.call_tool(tool, args)
                assert result.is_error and result.structured_content["error"]["code"] == "conflict", (tool, result)
                assert (vg.root / rel).read_text() == edit, tool
