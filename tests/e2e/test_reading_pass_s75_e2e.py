"""Reading tools, property writes and graph tools as a user meets them (H3, session 75): a real
uvicorn server and the SDK's Streamable HTTP client in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error as _error
from tests.e2e.calls import ok as _ok


async def test_properties_are_written_as_obsidian_writes_them(make_vault: Callable[..., Path], mode: str) -> None:
    """set_properties / add_tags on a note without frontmatter wrote `- item` unindented and
    `'[[Link]]'` single-quoted; Obsidian writes `  - "[[Link]]"` and rewrote our output on its next
    save (diff churn in synced or versioned vaults)."""
    vault = make_vault({"Notes/Kyoto.md": "# Kyoto\n"})
    async with e2e(vault, index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        await _ok(c, "set_properties", path="kyoto", properties={"categories": ["[[Places]]"], "episode": "145"})
        await _ok(c, "add_tags", path="kyoto", tags=["places/cities"])
        text = (vault / "Notes/Kyoto.md").read_text()
        assert text == '---\ncategories:\n  - "[[Places]]"\nepisode: "145"\ntags:\n  - places/cities\n---\n# Kyoto\n'


async def test_a_canvas_or_a_base_in_path_bundle_and_lookup_tools(make_vault: Callable[..., Path], mode: str) -> None:
    """shortest_path answered note_not_found 'Trip board.canvas.md' for a canvas; a missing
    'Book.base' was not_a_note ("names an Obsidian base") though no such base exists;
    bundle_files listed an existing canvas or base under `missing`."""
    board = '{"nodes":[{"id":"a","type":"text","text":"See [[Kyoto]]","x":0,"y":0,"width":9,"height":9}],"edges":[]}'
    files: dict[str, str | bytes] = {
        "Boards/Trip board.canvas": board,
        "Places/Kyoto.md": "# Kyoto\nsee [[Osaka]]\n",
        "Places/Osaka.md": "# Osaka\n![[Books.base]]\n",
        "Bases/Books.base": "views:\n  - type: table\n    name: B\n",
    }
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        path = await _ok(c, "shortest_path", source="Trip board.canvas", target="Books.base")
        assert [n["path"] for n in path["notes"]] == [
            "Boards/Trip board.canvas",
            "Places/Kyoto.md",
            "Places/Osaka.md",
            "Bases/Books.base",
        ]
        missing = await _error(c, "get_backlinks", path="Book.base")
        assert missing["code"] == "note_not_found" and missing["details"]["suggestions"] == ["Bases/Books.base"]
        bundle = await _ok(c, "bundle_files", paths=["Kyoto", "Trip board.canvas", "Books.base"])
        assert bundle["missing"] == [] and [f["kind"] for f in bundle["not_notes"]] == ["canvas", "base"]


async def test_hints_say_what_helps_when_a_line_is_too_long(make_vault: Callable[..., Path], mode: str) -> None:
    """read_note of one line longer than an answer may hold was told to "read a line range";
    set_properties with an empty property name got the generic input-schema hint."""
    vault = make_vault({"Line.md": "x" * 20_000 + "\n", "N.md": "# N\n"})
    governor = {"max_response_bytes": 16384}
    async with e2e(vault, index={"watch": False}, governor=governor) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        line = await _error(c, "read_note", path="Line", start_line=1, end_line=1)
        assert line["code"] == "overflow" and line["details"]["reason"] == "line_too_long"
        assert "bundle_files" in line["hint"]
        name = await _error(c, "set_properties", path="N", properties={" ": 1})
        assert name["details"]["reason"] == "invalid_property_name"


async def test_a_notes_bare_name_in_reading_tools(make_vault: Callable[..., Path], mode: str) -> None:
    """A note's name alone, in another letter case and NFD, is found by the note tools;
    read_attachment given it answered note_not_found with nothing to go on."""
    vault = make_vault({"Places/Kyoto.md": "# Kyoto\n", "Food/Café Menu.md": "# Café\n[[Kyoto]]\n"})
    async with e2e(vault, index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        back = await _ok(c, "get_backlinks", path="kyoto")
        assert [i["path"] for i in back["items"]] == ["Food/Café Menu.md"]
        out = await _ok(c, "get_outlinks", path="cafe\u0301 menu")  # NFD, as a macOS client may spell it
        assert [i["path"] for i in out["items"]] == ["Places/Kyoto.md"]
        error = await _error(c, "read_attachment", path="kyoto")
        assert error["code"] == "note_not_found" and error["details"]["note"] == "Places/Kyoto.md"
