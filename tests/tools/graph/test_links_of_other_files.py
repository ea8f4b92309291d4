"""The graph tools and read_attachment take a file that is not a note as a note's link names it.

Found serving kepano's vault to the MCP TypeScript SDK (U7, session 74): `cover: [[out-of-control.jpg]]`
names the image by its name alone, and list_attachments reported the note as embedding it, but
read_attachment 'out-of-control.jpg' answered note_not_found (it took the path only as written,
where ocr_attachment finds a file by name) and get_backlinks answered note_not_found ('no note at
out-of-control.jpg.md') by name, not_a_note by path: no tool said which notes embed an image,
a base ('Books.base') or a canvas. get_outlinks and graph_neighbors of a canvas answered the same,
though get_backlinks and graph_neighbors list a canvas as a note linking to others.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from tests.conftest import started


def jpeg() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 4), (10, 20, 30)).save(buf, format="JPEG")
    return buf.getvalue()


CANVAS = (
    '{"nodes":[{"id":"a","type":"text","text":"Visit [[Kyoto]]","x":0,"y":0,"width":9,"height":9},'
    '{"id":"b","type":"file","file":"Places/Osaka.md","x":0,"y":0,"width":9,"height":9}],"edges":[]}'
)
VAULT: dict[str, str | bytes] = {
    "Places/Kyoto.md": "# Kyoto\n",
    "Places/Osaka.md": "# Osaka\n",
    "Books/Out of Control.md": '---\ncover: "[[out-of-control.jpg]]"\n---\n# Out of Control\n\n![[Books.base]]\n',
    "Attachments/out-of-control.jpg": jpeg(),
    "Bases/Books.base": "views:\n  - type: table\n    name: All\n",
    "Boards/Trip board.canvas": CANVAS,
    "Trip.md": "See ![[Trip board.canvas]]\n",
    "Dr. Who.md": "# Dr. Who\n",
}


async def test_files_that_are_not_notes_by_their_names(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        for name in ("out-of-control.jpg", "[[out-of-control.jpg]]", "Attachments/out-of-control.jpg"):
            out = await vg.ok("read_attachment", path=name)
            assert out["path"] == "Attachments/out-of-control.jpg", name
            back = await vg.ok("get_backlinks", path=name)
            assert back["target"] == "Attachments/out-of-control.jpg", name
            assert [(i["path"], i["property"]) for i in back["items"]] == [("Books/Out of Control.md", "cover")]
        assert (await vg.ok("read_attachment", path="Books.base"))["path"] == "Bases/Books.base"
        base = await vg.ok("get_backlinks", path="Books.base")
        assert [i["path"] for i in base["items"]] == ["Books/Out of Control.md"]
        for name in ("Trip board.canvas", "Boards/Trip board.canvas"):
            back = await vg.ok("get_backlinks", path=name)
            assert [i["path"] for i in back["items"]] == ["Trip.md"], name
            out = await vg.ok("get_outlinks", path=name)
            assert out["source"] == "Boards/Trip board.canvas"
            assert [(i["path"], i["resolved"]) for i in out["items"]] == [
                ("Places/Kyoto.md", True),
                ("Places/Osaka.md", True),
            ]
            near = await vg.ok("graph_neighbors", path=name)
            assert {(i["path"], i["direction"]) for i in near["items"]} == {
                ("Places/Kyoto.md", "out"),
                ("Places/Osaka.md", "out"),
                ("Trip.md", "in"),
            }


async def test_what_stays_an_error(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        gone = await vg.call("get_backlinks", path="nowhere.jpg")
        assert gone.structured is not None and gone.structured["error"]["code"] == "note_not_found"
        folder = await vg.call("get_outlinks", path="Boards")
        assert folder.structured is not None and folder.structured["error"]["code"] == "not_a_note"
        note = await vg.call("read_attachment", path="Places/Kyoto.md")
        assert note.structured is not None and note.structured["error"]["details"]["reason"] == "is_a_note"
        missing = await vg.call("read_attachment", path="nothing.png")
        assert missing.structured is not None and missing.structured["error"]["code"] == "note_not_found"
        assert (await vg.ok("get_backlinks", path="Dr. Who"))["target"] == "Dr. Who.md"  # a dot in a note's name
