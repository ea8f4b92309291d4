"""Over HTTP with the SDK client, both eras: move_note, rename_note, delete_note and copy_note take
a canvas or an image by its name with its extension, as a link names it; the move's confirmation
lists the files its run changes and the links to the file follow it (dispatch-chain tests:
tests/tools/notes/test_file_tools_take_any_file.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

BOARD = '{"nodes":[],"edges":[]}'
VAULT: dict[str, str | bytes] = {
    "Boards/Trip board.canvas": BOARD,
    "Home.md": "[[Boards/Trip board.canvas|board]] ![[photo.png|200]]\n",
    "img/photo.png": b"png",
}


async def test_canvas_and_image_file_tools_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        args = {"path": "Trip board.canvas", "new_path": "Archive/"}
        asked = await error(c, "move_note", **args)
        assert asked["code"] == "elicit_required"
        assert sorted(asked["details"]["files"]) == ["Archive/Trip board.canvas", "Boards/Trip board.canvas", "Home.md"]
        token = await h.token_for("move_note", **args)
        moved = await ok(c, "move_note", **args, elicit_token=token)
        assert moved["path"] == "Archive/Trip board.canvas" and moved["files_changed"] == 3
        await ok(c, "rename_note", path="[[photo.png]]", new_path="cover")
        assert h.read("Home.md") == "[[Archive/Trip board.canvas|board]] ![[cover.png|200]]\n"
        copied = await ok(c, "copy_note", path="Trip board.canvas", new_path="Copies/")
        assert copied["path"] == "Copies/Trip board.canvas"
        deleted = await ok(c, "delete_note", path="cover.png")
        assert deleted["path"] == "img/cover.png" and not (h.root / "img/cover.png").exists()
        assert (h.root / deleted["trash_path"]).read_bytes() == b"png"
