"""What a user driving a served copy of kepano's vault (plus the Obsidian Help notes, a canvas and
an image) met, end to end: a real uvicorn server and the SDK's Streamable HTTP client in both
protocol eras (U7, session 74)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client
from PIL import Image

from service.embeddings.builtin import BuiltinEmbedder
from tests.conftest import e2e
from tests.e2e.calls import ok as _ok
from tests.semantic.helpers import model_ready, settled


def _jpeg() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 4), (10, 20, 30)).save(buf, format="JPEG")
    return buf.getvalue()


async def test_an_image_a_base_and_a_canvas_by_the_names_notes_give_them(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """`cover: [[out-of-control.jpg]]` names the image by its name alone: read_attachment and
    get_backlinks answered note_not_found for it, get_backlinks of 'Books.base' not_a_note, and
    get_outlinks / graph_neighbors of a canvas (which get_backlinks lists as linking) the same."""
    files: dict[str, str | bytes] = {
        "References/Out of Control.md": '---\ncover: "[[out-of-control.jpg]]"\n---\n\n![[Books.base]]\n',
        "References/Kyoto.md": "# Kyoto\n",
        "Attachments/out-of-control.jpg": _jpeg(),
        "Templates/Bases/Books.base": "views:\n  - type: table\n    name: Books\n",
        "Notes/Trip board.canvas": '{"nodes":[{"id":"a","type":"text","text":"See [[Kyoto]]","x":0,"y":0,'
        '"width":9,"height":9}],"edges":[]}',
    }
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        image = await _ok(c, "read_attachment", path="out-of-control.jpg")
        assert image["path"] == "Attachments/out-of-control.jpg" and image["kind"] == "image"
        back = await _ok(c, "get_backlinks", path="out-of-control.jpg")
        assert [(i["path"], i["property"]) for i in back["items"]] == [("References/Out of Control.md", "cover")]
        base = await _ok(c, "get_backlinks", path="Books.base")
        assert base["target"] == "Templates/Bases/Books.base"
        assert [i["path"] for i in base["items"]] == ["References/Out of Control.md"]
        out = await _ok(c, "get_outlinks", path="Trip board.canvas")
        assert [(i["path"], i["resolved"]) for i in out["items"]] == [("References/Kyoto.md", True)]
        near = await _ok(c, "graph_neighbors", path="Trip board.canvas")
        assert [i["path"] for i in near["items"]] == ["References/Kyoto.md"]


async def test_search_notes_pages_by_cursor_reach_every_note(make_vault: Callable[..., Path], mode: str) -> None:
    """search_notes (semantic) paged by `next_cursor` stopped at the notes the first page's vector
    ranking held (400 of these 450), where paging by `offset` reached all: the ranking's depth
    read the `offset` argument, 0 on a page asked for by cursor."""
    files = {f"Notes/N{i:03}.md": f"# Note {i}\n\nA short note about the garden, number {i}.\n" for i in range(450)}
    await model_ready()
    embeddings = {"provider": "builtin", "debounce_ms": 0}
    async with e2e(make_vault(files), embeddings=embeddings) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await settled(h)
        paths: list[str] = []
        cursor: str | None = None
        for _ in range(30):
            args: dict[str, object] = {"query": "garden note", "mode": "semantic", "limit": 20}
            out = await _ok(c, "search_notes", **({**args, "cursor": cursor} if cursor else args))
            paths += [i["path"] for i in out["items"]]
            cursor = out["next_cursor"]
            if cursor is None:
                break
        assert len(paths) == len(set(paths)) == len(files), len(paths)


async def test_a_nul_in_a_search_query_separates_words(make_vault: Callable[..., Path], mode: str) -> None:
    """search_text 'sync\\x00' answered 'the search engine rejected the query' (FTS5's
    'unterminated string', no hint); the NUL now separates words."""
    files = {"Sync.md": "# Sync\n\nSync settings.\n", "Other.md": "# Other\n"}
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        out = await _ok(c, "search_text", query="sync\x00settings")
        assert [i["path"] for i in out["items"]] == ["Sync.md"]


async def test_a_folder_named_by_its_own_name_is_suggested(make_vault: Callable[..., Path], mode: str) -> None:
    """list_notes folder 'Obsidian Sync' (the Help vault's Help/Obsidian Sync) was note_not_found
    with no suggestion; it now names the folder."""
    files = {"Help/Obsidian Sync/Set up.md": "# Set up\n", "Home.md": "# Home\n"}
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        answer = await c.call_tool("list_notes", {"folder": "obsidian sync"})
        assert answer.is_error and answer.structured_content is not None
        assert answer.structured_content["error"]["details"]["suggestions"] == ["Help/Obsidian Sync"]


async def test_search_hybrid_finds_a_note_waiting_for_its_vector(
    make_vault: Callable[..., Path], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """search_hybrid 'okapi' right after create_note listed notes the vectors chose and not the
    one holding the word (no vector yet: the vector list's floor); it is ranked by its words."""
    files = {"Notes/Garden.md": "# Garden\n\nTomatoes and basil.\n", "Notes/Taxes.md": "# Taxes\n\nPay them.\n"}
    await model_ready()
    embeddings = {"provider": "builtin", "debounce_ms": 0}
    async with e2e(make_vault(files), embeddings=embeddings) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await settled(h)
        gate = asyncio.Event()
        real = BuiltinEmbedder.embed_documents

        async def held(self: BuiltinEmbedder, texts: list[str]) -> object:
            await gate.wait()
            return await real(self, texts)

        monkeypatch.setattr(BuiltinEmbedder, "embed_documents", held)
        try:
            await _ok(c, "create_note", path="Notes/Okapi facts", content="Okapis live in the Ituri rainforest.\n")
            out = await _ok(c, "search_hybrid", query="okapi", limit=3)
            assert out["complete"] is False and out["items"][0]["path"] == "Notes/Okapi facts.md"
            notes = await _ok(c, "search_notes", query="okapi", mode="hybrid", limit=3)
            assert notes["items"][0]["path"] == "Notes/Okapi facts.md"
            rag = await _ok(c, "graphrag_query", query="okapi", limit=3, hops=0)
            assert rag["items"][0]["path"] == "Notes/Okapi facts.md"
        finally:
            gate.set()
