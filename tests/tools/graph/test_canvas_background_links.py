"""A canvas group's background image is a link from the canvas (service/indexer/canvas_facts.py):
the image's backlinks list the canvas, and moving or renaming the image rewrites the background
even when no file node of the canvas shows that image (X3 s78: the background kept the old
path). An index built before keeps working: the migration has every canvas read again."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from service.indexer.canvas_facts import canvas_facts
from tests.conftest import Harness, started

GROUP = {"id": "g1", "type": "group", "x": 0, "y": 0, "width": 600, "height": 400, "label": "Moodboard",
         "background": "Pics/sky.png", "backgroundStyle": "cover"}  # fmt: skip
TEXT = {"id": "t1", "type": "text", "x": 20, "y": 20, "width": 200, "height": 60, "text": "Sky ideas"}
FILES: dict[str, str | bytes] = {
    "Pics/sky.png": b"\x89PNG\r\n\x1a\n",
    "Mood.canvas": json.dumps({"nodes": [GROUP, TEXT], "edges": []}, indent="\t"),
}


@pytest.fixture
async def vg(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(FILES)) as h:
        await h.indexed()
        yield h


def test_the_background_is_an_embed_on_the_line_of_its_field() -> None:
    text = str(FILES["Mood.canvas"])
    facts = canvas_facts("Mood.canvas", text)
    assert [(lk.target, lk.embed, lk.kind) for lk in facts.links] == [("Pics/sky.png", True, "canvas")]
    line = text.splitlines()[facts.links[0].line]
    assert '"background": "Pics/sky.png"' in line


async def test_the_image_s_backlinks_list_the_canvas(vg: Harness) -> None:
    out = await vg.ok("get_backlinks", path="Pics/sky.png")
    assert [i["path"] for i in out["items"]] == ["Mood.canvas"]


@pytest.mark.parametrize("new_path", ["Art/sky.png", "Pics/heaven.png"])
async def test_moving_or_renaming_the_image_rewrites_the_background(vg: Harness, new_path: str) -> None:
    first = await vg.call("move_note", path="Pics/sky.png", new_path=new_path)
    asked = first.is_error and (first.structured or {})["error"]["code"] == "elicit_required"  # across folders
    out = await vg.confirmed("move_note", path="Pics/sky.png", new_path=new_path) if asked else first.structured
    assert out is not None and out.get("error") is None, out
    assert [i["path"] for i in out["items"]] == ["Mood.canvas"]
    after = json.loads(vg.read("Mood.canvas"))
    assert after["nodes"][0]["background"] == new_path
    assert after["nodes"][0]["backgroundStyle"] == "cover" and after["nodes"][1] == TEXT
    links = await vg.ok("get_backlinks", path=new_path)
    assert [i["path"] for i in links["items"]] == ["Mood.canvas"]


async def test_a_folder_move_rewrites_a_background_alone(vg: Harness) -> None:
    await vg.confirmed("move_note", path="Pics", new_path="Media/Pics")
    assert json.loads(vg.read("Mood.canvas"))["nodes"][0]["background"] == "Media/Pics/sky.png"


async def test_an_index_from_before_reads_its_canvases_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root) as h:
        await h.indexed()
        index = Path(h.app.db.path)
    conn = sqlite3.connect(index)
    with conn:  # as an index built before 0043 left it: no link from the background, etag kept
        conn.execute("DELETE FROM links WHERE target_raw = 'Pics/sky.png'")
        conn.execute("DELETE FROM schema_migrations WHERE version = 43")
    conn.close()
    async with started(root) as h:
        await h.indexed()
        out = await h.ok("get_backlinks", path="Pics/sky.png")
        assert [i["path"] for i in out["items"]] == ["Mood.canvas"]
