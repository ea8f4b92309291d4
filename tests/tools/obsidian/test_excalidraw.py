"""read_excalidraw and write_excalidraw (the Excalidraw plugin's drawings, no Obsidian), through
the chain; and the drawing's words in search_text, its scene not."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from service.obsidian import excalidraw as ex
from service.obsidian import lzstring
from tests.conftest import Harness, started
from tests.unit.obsidian.test_excalidraw_format import SCENE, plugin_note

NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}


def _plain_note(scene: str = SCENE) -> str:
    return plugin_note().replace("```compressed-json\n" + ex.compressed_block(SCENE), "```json\n" + scene)


BOMB = lzstring.compress_to_base64('{"elements": [], "x": "' + "a" * 400_000 + '"}')

FILES: dict[str, str | bytes] = {
    "Drawings/Plan.excalidraw.md": plugin_note(),
    "Drawings/Open.excalidraw.md": _plain_note(),
    "Boards/Loose.excalidraw": SCENE,
    "Private/Secret.excalidraw.md": plugin_note(),
    "Notes/Ordinary.md": "# Ordinary\n\nJust words.\n",
    "Drawings/Broken.excalidraw.md": "---\nexcalidraw-plugin: parsed\n---\n# Excalidraw Data\n",
    "Drawings/Bomb.excalidraw.md": "---\nexcalidraw-plugin: parsed\n---\n%%\n## Drawing\n```compressed-json\n"
    + BOMB
    + "\n```\n%%",
}


@pytest.fixture
async def xd(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(FILES), acl=NO_PRIVATE, limits={"max_value_bytes": 100_000}) as harness:
        yield harness


def _texts(out: dict[str, Any]) -> list[tuple[str, str]]:
    return [(t["id"], t["text"]) for t in out["text_elements"]]


def _rect(ident: str, **fields: Any) -> dict[str, Any]:
    return {"id": ident, "type": "rectangle", "x": 0, "y": 0, "width": 10, "height": 10, **fields}


@pytest.mark.covers("read_excalidraw", "success")
async def test_read_a_compressed_drawing_note(xd: Harness) -> None:
    out = await xd.ok("read_excalidraw", path="Drawings/Plan.excalidraw.md")
    assert out["path"] == "Drawings/Plan.excalidraw.md" and out["title"] == "Plan" and len(out["etag"]) == 32
    assert out["form"] == "markdown" and out["compressed"] is True
    assert out["elements"] == 2 and out["deleted"] == 0 and out["by_type"] == {"text": 1, "rectangle": 1}
    assert _texts(out) == [("Txt00001", "Quarterly plan")]
    assert out["links"] == [{"id": "Box00001", "type": "rectangle", "link": "[[Plan]]"}]
    assert out["embedded_files"] == [{"file_id": "abc123", "target": "chart.png", "kind": "file"}]
    assert out.get("scene") is None  # only with include_scene


async def test_read_a_plain_json_note_and_a_plain_file_with_the_scene(xd: Harness) -> None:
    note = await xd.ok("read_excalidraw", path="Drawings/Open.excalidraw.md", include_scene=True)
    assert note["compressed"] is False and note["scene"] == json.loads(SCENE)
    plain = await xd.ok("read_excalidraw", path="Boards/Loose.excalidraw", include_scene=True)
    assert plain["form"] == "json" and plain["title"] == "Loose" and plain["scene"] == json.loads(SCENE)
    assert _texts(plain) == [("Txt00001", "Quarterly plan")]


async def test_a_drawing_is_named_as_a_note_is(xd: Harness) -> None:
    for name in ("Plan.excalidraw", "Plan", "[[Plan.excalidraw]]", "Drawings/Plan.excalidraw", "Loose.excalidraw"):
        out = await xd.ok("read_excalidraw", path=name)
        assert out["title"] in ("Plan", "Loose"), name
    assert (await xd.ok("read_excalidraw", path="Plan"))["path"] == "Drawings/Plan.excalidraw.md"


@pytest.mark.covers("read_excalidraw", "failure")
async def test_read_failures(xd: Harness) -> None:
    await xd.err("read_excalidraw", "note_not_found", path="Drawings/Nope.excalidraw.md")
    await xd.err("read_excalidraw", "note_not_found", path="Secret")  # a denied drawing is not found by name
    await xd.err("read_excalidraw", "acl_denied", path="Private/Secret.excalidraw.md")  # its path: as read_note
    await xd.err("read_excalidraw", "path_invalid", path="../x.excalidraw")
    err = await xd.err("read_excalidraw", "validation_error", path="Notes/Ordinary.md")
    assert err["details"]["reason"] == "not_a_drawing"
    err = await xd.err("read_excalidraw", "validation_error", path="Drawings/Broken.excalidraw.md")
    assert err["details"]["reason"] == "no_drawing"


async def test_an_lz_bomb_is_refused_before_it_is_built(xd: Harness) -> None:
    err = await xd.err("read_excalidraw", "compute_budget_exceeded", path="Drawings/Bomb.excalidraw.md")
    assert err["details"]["limit"] == "bytes" and err["details"]["reason"] == "drawing_too_large"
    assert err["details"]["max_value_bytes"] == 100_000


@pytest.mark.covers("write_excalidraw", "success")
async def test_writing_back_an_unchanged_scene_gives_the_same_bytes(xd: Harness) -> None:
    for path in ("Drawings/Plan.excalidraw.md", "Drawings/Open.excalidraw.md", "Boards/Loose.excalidraw"):
        before = (xd.root / path).read_bytes()
        read = await xd.ok("read_excalidraw", path=path, include_scene=True)
        out = await xd.ok("write_excalidraw", path=path, elements=read["scene"]["elements"], expected_etag=read["etag"])
        assert out["created"] is False and out["changed"] is False and out["etag"] == read["etag"]
        assert (xd.root / path).read_bytes() == before, path


async def test_create_a_drawing_the_plugin_opens(xd: Harness) -> None:
    elements = [
        _rect("Frame001", width=300, height=80, link="[[Notes/Ordinary]]"),
        {"id": "Label001", "type": "text", "x": 10, "y": 10, "width": 200, "height": 25, "text": "Roadmap 2027"},
    ]
    out = await xd.ok("write_excalidraw", path="Sketches/Road", elements=elements, create_only=True)
    assert out["path"] == "Sketches/Road.excalidraw.md" and out["created"] is True and out["text_elements"] == 1
    text = xd.read("Sketches/Road.excalidraw.md")
    assert text.startswith("---\n\nexcalidraw-plugin: parsed\n")
    assert "## Text Elements\nRoadmap 2027 ^Label001\n\n## Element Links\nFrame001: [[Notes/Ordinary]]\n\n%%\n" in text
    block = re.search(r"```compressed-json\n(.*?)\n```\n%%\n$", text, re.S)
    assert block is not None
    scene = json.loads(lzstring.decompress_from_base64(block.group(1), max_chars=10**6) or "")
    assert [e["id"] for e in scene["elements"]] == ["Frame001", "Label001"]
    assert scene["elements"][1]["rawText"] == "Roadmap 2027"  # the plugin reads a text's words from it
    again = await xd.ok("read_excalidraw", path="Road.excalidraw")
    assert _texts(again) == [("Label001", "Roadmap 2027")]


async def test_modify_a_text_and_the_section_follows(xd: Harness) -> None:
    read = await xd.ok("read_excalidraw", path="Plan", include_scene=True)
    elements = read["scene"]["elements"]
    elements[0]["text"] = "Yearly plan"
    out = await xd.ok("write_excalidraw", path="Plan", elements=elements, expected_etag=read["etag"])
    assert out["changed"] is True
    text = xd.read("Drawings/Plan.excalidraw.md")
    assert "Yearly plan ^Txt00001" in text and "Quarterly" not in text.split("%%\n## Drawing")[0]
    assert text.startswith(plugin_note().split("# Excalidraw Data")[0])  # the header kept as it was
    assert "## Embedded Files\nabc123: [[chart.png]]\n\n" in text  # what the call does not own, kept
    again = await xd.ok("read_excalidraw", path="Plan", include_scene=True)
    assert again["text_elements"][0]["text"] == "Yearly plan"
    assert again["scene"]["elements"][0]["rawText"] == "Yearly plan"


async def test_editor_ids_become_block_ids_and_references_follow(xd: Harness) -> None:
    editor = "Kq3vZ0dL_x-7hYp2nNs1A"  # a text id as the Excalidraw editor makes them (21 characters)
    elements = [
        _rect("Box00001", boundElements=[{"type": "text", "id": editor}]),
        {**_rect(editor, type="text", text="inside"), "containerId": "Box00001"},
        _rect("Arrow001", type="arrow", startBinding={"elementId": editor, "focus": 0, "gap": 1}),
    ]
    out = await xd.ok("write_excalidraw", path="Ids", elements=elements)
    new = out["renamed"][editor]
    assert re.fullmatch(r"[0-9A-Za-z]{8}", new) and list(out["renamed"]) == [editor]
    scene = (await xd.ok("read_excalidraw", path="Ids", include_scene=True))["scene"]
    box, text, arrow = scene["elements"]
    assert box["boundElements"] == [{"type": "text", "id": new}] and text["id"] == new
    assert text["containerId"] == "Box00001" and arrow["startBinding"]["elementId"] == new
    assert f"inside ^{new}\n" in xd.read("Ids.excalidraw.md")


async def test_add_text_and_shapes_to_a_drawing(xd: Harness) -> None:
    out = await xd.ok(
        "write_excalidraw",
        path="Plan",
        add=[
            {"type": "text", "x": 0, "y": 100, "text": "Next: hire"},
            {"type": "ellipse", "x": 50, "y": 50, "width": 40, "height": 40, "id": "Circle01"},
            {"type": "arrow", "x": 0, "y": 0, "width": -30, "height": 20},
            {"type": "rectangle", "x": 200, "y": 0, "width": 120, "height": 60, "text": "Budget"},
        ],
    )
    assert out["elements"] == 7 and len(out["added"]) == 5 and out["added"][1] == "Circle01"
    read = await xd.ok("read_excalidraw", path="Plan", include_scene=True)
    assert [t["text"] for t in read["text_elements"]] == ["Quarterly plan", "Next: hire", "Budget"]
    arrow = read["scene"]["elements"][4]
    assert arrow["points"] == [[0, 0], [-30, 20]] and arrow["width"] == 30
    assert re.fullmatch(r"[0-9A-Za-z]{8}", out["added"][0])
    box, label = read["scene"]["elements"][5:]
    assert box["boundElements"] == [{"type": "text", "id": label["id"]}] and label["containerId"] == box["id"]
    assert read["text_elements"][2]["container_id"] == box["id"] and label["textAlign"] == "center"


@pytest.mark.covers("write_excalidraw", "failure")
async def test_write_guards(xd: Harness) -> None:
    before = xd.snapshot()
    path = "Drawings/Plan.excalidraw.md"
    await xd.err("write_excalidraw", "conflict", path=path, elements=[_rect("a")], expected_etag="0" * 32)
    await xd.err("write_excalidraw", "already_exists", path=path, elements=[_rect("a")], create_only=True)
    await xd.err("write_excalidraw", "elicit_required", path=path, elements=[_rect("a")])
    await xd.err("write_excalidraw", "acl_denied", path="Private/Secret.excalidraw.md", elements=[_rect("a")])
    await xd.err("write_excalidraw", "path_invalid", path="../Out", elements=[_rect("a")])
    err = await xd.err("write_excalidraw", "validation_error", path="Notes/Ordinary.md", elements=[_rect("a")])
    assert err["details"]["reason"] == "not_a_drawing"  # a note is never turned into a drawing
    err = await xd.err("write_excalidraw", "validation_error", path=path)
    assert err["details"]["reason"] == "elements_or_add"
    assert xd.snapshot() == before
    out = await xd.confirmed("write_excalidraw", path=path, elements=[_rect("a")])
    assert out["elements"] == 1 and "## Embedded Files\nabc123" in xd.read(path)


@pytest.mark.parametrize(
    ("elements", "where", "field"),
    [
        ([_rect("a"), _rect("a")], "elements[1]", "id"),
        ([_rect("a", type="blob")], "elements[0]", "type"),
        ([_rect("a", x="1")], "elements[0]", "x"),
        ([{"id": "a", "type": "ellipse", "x": 0, "y": 0, "width": 1}], "elements[0]", "height"),
        ([_rect("Txt00009", type="text")], "elements[0]", "text"),
        ([_rect("far-too-long-id", type="text", text="a"), _rect("far-too-long-id")], "elements[1]", "id"),
        ([_rect("a", link=5)], "elements[0]", "link"),
    ],
)
async def test_invalid_scenes_are_refused_whole(
    xd: Harness, elements: list[dict[str, Any]], where: str, field: str
) -> None:
    before = xd.snapshot()
    err = await xd.err("write_excalidraw", "validation_error", path="New", elements=elements)
    assert err["details"]["reason"] == "invalid_scene"
    assert (where, field) in [(p["where"], p["field"]) for p in err["details"]["problems"]]
    assert xd.snapshot() == before


async def test_invalid_additions_are_refused(xd: Harness) -> None:
    before = xd.snapshot()
    err = await xd.err("write_excalidraw", "validation_error", path="Plan", add=[{"type": "text", "x": 0, "y": 0}])
    assert err["details"]["problems"][0]["field"] == "text"
    err = await xd.err(
        "write_excalidraw",
        "validation_error",
        path="Plan",
        add=[{"type": "rectangle", "x": 0, "y": 0, "id": "Txt00001"}],
    )
    assert "duplicate" in err["details"]["problems"][0]["problem"]
    arrow = {"type": "arrow", "x": 0, "y": 0, "text": "no"}
    assert (await xd.err("write_excalidraw", "validation_error", path="Plan", add=[arrow]))["details"]["problems"]
    assert xd.snapshot() == before


async def test_search_finds_a_drawing_by_its_words_not_by_its_scene(make_vault: Callable[..., Path]) -> None:
    token = max(re.findall(r"[A-Za-z0-9]+", ex.compressed_block(SCENE)), key=len)
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        found = await vg.ok("search_text", query="Quarterly", limit=10)
        assert "Drawings/Plan.excalidraw.md" in [i["path"] for i in found["items"]]
        noise = await vg.ok("search_text", query=token, limit=10)
        assert noise["items"] == []  # the compressed scene is not words
        scene = await vg.ok("search_text", query="versionNonce OR appState", limit=10)
        assert "Drawings/Open.excalidraw.md" not in [i["path"] for i in scene["items"]]
        await vg.ok("write_excalidraw", path="Plan", add=[{"type": "text", "x": 0, "y": 0, "text": "zeppelin route"}])
        await vg.indexed()
        again = await vg.ok("search_text", query="zeppelin", limit=10)
        assert [i["path"] for i in again["items"]] == ["Drawings/Plan.excalidraw.md"]
