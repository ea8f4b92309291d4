"""The Excalidraw format pieces: LZ-string against the JavaScript library's own output,
JavaScript's JSON text, and a drawing note taken apart and put back together."""

from __future__ import annotations

import json

import pytest

from service.obsidian import excalidraw as ex
from service.obsidian import excalidraw_elements as els
from service.obsidian import jsjson, lzstring

# Made by the lz-string JavaScript library (the copy the Excalidraw plugin bundles), run under Node:
# LZString.compressToBase64(input).
JS_VECTORS = [
    ("Hello, world", "BIUwNmD2A0AEDukBOYAmQ==="),
    ('{"type":"excalidraw","elements":[]}', "N4IgLgngDgpiBcIYA8DGBDANgSwCYCd0B3EAGiUxgFsYA7MAZwQG0BdAXyA="),
    ("a" * 40, "IY18ZVkA"),
    ("Grüße 😀 漢字", "OIJwPw+wpgBIvBuAA9mgie0OraQ="),  # 16-bit units and a surrogate pair
]


@pytest.mark.parametrize(("text", "packed"), JS_VECTORS)
def test_lzstring_matches_the_javascript_library_both_ways(text: str, packed: str) -> None:
    assert lzstring.compress_to_base64(text) == packed
    assert lzstring.decompress_from_base64(packed, max_chars=1000) == text


def test_lzstring_reads_the_block_as_the_plugin_wraps_it() -> None:
    text = json.dumps({"elements": [{"id": f"e{i}", "text": "word " * i} for i in range(200)]})
    block = ex.compressed_block(text)
    assert "\n\n" in block and all(len(line) <= ex.CHUNK for line in block.split("\n"))
    assert lzstring.decompress_from_base64(block, max_chars=len(text)) == text


def test_a_small_block_that_expands_past_the_limit_is_stopped() -> None:
    bomb = lzstring.compress_to_base64("a" * 200_000)
    assert len(bomb) < 2_000
    with pytest.raises(lzstring.DecompressTooLarge) as caught:
        lzstring.decompress_from_base64(bomb, max_chars=50_000)
    assert caught.value.size > 50_000


def test_a_stream_the_library_cannot_decode_is_none_or_empty() -> None:
    assert lzstring.decompress_from_base64("", max_chars=10) is None
    assert lzstring.decompress_from_base64("////", max_chars=10) is None
    assert lzstring.decompress_from_base64("BIUwNmD2", max_chars=100) == ""  # cut short


@pytest.mark.parametrize(
    ("value", "js"),
    [
        (100.0, "100"),
        (0.00001, "0.00001"),
        (1e-7, "1e-7"),
        (1.5e16, "15000000000000000"),
        (1e21, "1e+21"),
        (-0.0, "0"),
        (123.456, "123.456"),
        (-2274.162907130364, "-2274.162907130364"),
        (float("nan"), "null"),
        (7, "7"),
    ],
)
def test_numbers_are_written_as_javascript_writes_them(value: float, js: str) -> None:
    assert jsjson.number(value) == js


def test_stringify_orders_index_keys_first_and_escapes_lone_surrogates() -> None:
    value = {"b": 1, "10": [], "2": {}, "a": "x\ud800y\n"}
    assert jsjson.stringify(value) == '{\n\t"2": {},\n\t"10": [],\n\t"b": 1,\n\t"a": "x\\ud800y\\n"\n}'


SCENE = (
    '{\n\t"type": "excalidraw",\n\t"version": 2,\n\t"source": "test",\n\t"elements": [\n\t\t{\n\t\t\t"id": "Txt00001",'
    '\n\t\t\t"type": "text",\n\t\t\t"x": 0.5,\n\t\t\t"y": 0,\n\t\t\t"width": 120,\n\t\t\t"height": 25,\n\t\t\t'
    '"text": "Quarterly plan",\n\t\t\t"rawText": "Quarterly plan",\n\t\t\t"link": null\n\t\t},\n\t\t{\n\t\t\t'
    '"id": "Box00001",\n\t\t\t"type": "rectangle",\n\t\t\t"x": -10,\n\t\t\t"y": -10,\n\t\t\t"width": 200,\n\t\t\t'
    '"height": 60,\n\t\t\t"link": "[[Plan]]"\n\t\t}\n\t],\n\t"appState": {\n\t\t"gridSize": null\n\t},\n\t'
    '"files": {}\n}'
)


def plugin_note(scene: str = SCENE) -> str:
    """A drawing note laid out as the plugin saves one (written by hand here, the block by LZ-string)."""
    return (
        "---\n\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n\n---\nback of the card\n\n\n"
        "# Excalidraw Data\n\n## Text Elements\nQuarterly plan ^Txt00001\n\n"
        "## Element Links\nBox00001: [[Plan]]\n\n"
        "## Embedded Files\nabc123: [[chart.png]]\n\n"
        "%%\n## Drawing\n```compressed-json\n" + ex.compressed_block(scene) + "\n```\n%%"
    )


def test_a_plugin_note_is_read_into_its_parts() -> None:
    drawing = ex.parse_markdown(plugin_note(), max_chars=100_000)
    assert drawing.compressed and drawing.header.endswith("back of the card\n\n\n")
    assert drawing.section_texts == {"Txt00001": "Quarterly plan"}
    assert drawing.section_links == {"Box00001": "[[Plan]]"}
    assert [(f.file_id, f.target, f.kind) for f in drawing.embedded] == [("abc123", "chart.png", "file")]
    assert [e["id"] for e in els.elements_of(drawing.scene)] == ["Txt00001", "Box00001"]


def test_a_note_regenerated_from_its_scene_is_the_plugins_layout_to_the_byte() -> None:
    text = plugin_note()
    drawing = ex.parse_markdown(text, max_chars=100_000)
    drawing.original, drawing.section_raw = None, ""  # nothing reused: every part rebuilt
    assert ex.render(drawing) == text


def test_a_plain_json_block_and_a_plain_file_round_trip() -> None:
    note = plugin_note().replace("```compressed-json\n" + ex.compressed_block(SCENE), "```json\n" + SCENE)
    drawing = ex.parse_markdown(note, max_chars=100_000)
    assert not drawing.compressed
    drawing.original = None
    assert ex.render(drawing) == note
    plain = ex.parse_json(SCENE)
    plain.original = None
    assert ex.render(plain) == SCENE


def test_the_index_text_keeps_the_words_and_drops_the_scene() -> None:
    text = plugin_note()
    kept = ex.without_scene(text)
    assert "Quarterly plan ^Txt00001" in kept and "```compressed-json\n" in kept
    assert ex.compressed_block(SCENE)[:40] not in kept
    assert kept.count("\n") == text.count("\n")


def test_problems_are_all_reported() -> None:
    found = els.problems(
        [
            {"id": "a", "type": "blob", "x": 0, "y": 0, "width": 1, "height": 1},
            {"id": "a", "type": "rectangle", "x": "0", "y": 0, "width": 1},
            {"id": "too-long-id", "type": "text", "x": 0, "y": 0, "width": 1, "height": 1},
            "nope",
        ]
    )
    assert {(p["where"], p["field"]) for p in found} == {
        ("elements[0]", "type"),
        ("elements[1]", "id"),
        ("elements[1]", "x"),
        ("elements[1]", "height"),
        ("elements[2]", "id"),
        ("elements[2]", "text"),
        ("elements[3]", ""),
    }


def test_an_older_layout_is_rebuilt_in_its_own_headings() -> None:
    """Before 1.6 the plugin wrote "# Text Elements", "# Embedded files" after a blank line and
    "# Drawing"; a rebuilt section and block keep that layout."""
    note = (
        "---\n\nexcalidraw-plugin: parsed\n\n---\n\n# Text Elements\nQuarterly plan ^Txt00001\n\n\n"
        "# Embedded files\nabc123: [[chart.png]]\n\n%%\n# Drawing\n```json\n"
        + SCENE.replace('"link": "[[Plan]]"', '"link": null')  # no Element Links section back then
        + "\n```\n%%"
    )
    drawing = ex.parse_markdown(note, max_chars=100_000)
    assert [(f.file_id, f.target) for f in drawing.embedded] == [("abc123", "chart.png")]
    drawing.section_raw, drawing.block_raw = "", ""
    assert ex.render(drawing) == note


def test_the_section_wins_for_what_the_call_did_not_change() -> None:
    """Obsidian rewrites a renamed note's links in the Text Elements section, not in the scene: a
    rebuilt section keeps the section's text for an element the call left as it was."""
    note = plugin_note().replace("Quarterly plan ^Txt00001", "See [[Renamed plan]] ^Txt00001")
    drawing = ex.parse_markdown(note, max_chars=100_000)
    scene = json.loads(SCENE)
    scene["elements"].append({"id": "New00001", "type": "text", "x": 0, "y": 0, "width": 1, "height": 1, "text": "hi"})
    drawing.scene = scene
    text = ex.render(drawing)
    assert "See [[Renamed plan]] ^Txt00001\n\nhi ^New00001\n\n" in text
    scene["elements"][0]["rawText"] = "Edited"
    assert "Edited ^Txt00001" in ex.render(drawing)  # an element the call changed: the call's text
