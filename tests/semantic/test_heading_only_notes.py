"""A note of headings alone (no body text under them) is one fallback chunk that holds its
headings, and an empty note one that holds its title: no tool by meaning answers an empty passage
(issue 14's fallback chunk), through the real dispatch chain with the builtin model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.semantic.helpers import VAULT, semantic
from tests.semantic.test_chunker import chunker

NOTES = {
    **VAULT,
    "Stub.md": "# Volcano eruptions and lava flows\n",
    "Outline.md": "# Outline\n\n## Glaciers retreating\n\n## Sea ice\n",
    "Blank.md": "",
}
QUERY = "volcano eruptions and lava"


async def test_a_note_of_headings_alone_is_found_by_its_headings(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as h:
        rag = await h.ok("rag_search", query=QUERY, max_results=3)
        top = rag["results"][0]
        assert top["path"] == "Stub.md"
        assert top["chunk_text"] == "Volcano eruptions and lava flows"
        assert top["section"] == "Volcano eruptions and lava flows"
        assert top["score"] > 0.5  # the heading's words are embedded, not only the file name
        sem = await h.ok("search_semantic", query=QUERY, limit=3)
        assert sem["items"][0]["path"] == "Stub.md" and sem["items"][0]["chunk"] == top["chunk_text"]
        outline = await h.ok("search_semantic", query="glaciers retreating and sea ice", limit=1)
        assert outline["items"][0]["path"] == "Outline.md"
        assert outline["items"][0]["chunk"] == "Outline\nGlaciers retreating\nSea ice"
        for query in (QUERY, "blank"):
            packed = await h.ok("context_for_query", query=query, max_tokens=200)
            assert packed["passages"] and all(p["text"].strip() for p in packed["passages"]), packed
        every = await h.ok("rag_search", query="blank", max_results=50)
        assert all(r["chunk_text"].strip() for r in every["results"])


def test_the_fallback_chunk_holds_headings_or_the_title() -> None:
    [stub] = chunker().chunks("Stub", "# Volcano eruptions and lava flows\n")
    assert (stub.text, stub.heading_path) == ("Volcano eruptions and lava flows", ("Volcano eruptions and lava flows",))
    assert stub.embed_text == "Stub\nVolcano eruptions and lava flows"
    [same] = chunker().chunks("Volcano", "# Volcano\n## Lava\n")
    assert same.embed_text == "Volcano\nLava"  # the title once
    [blank] = chunker().chunks("Blank", "")
    assert (blank.text, blank.embed_text) == ("Blank", "Blank")
