"""search_hybrid ranks a note still waiting for its vector by its words alone. A note written
since the embedding job last ran had no vector, so the fusion gave it the vector list's floor:
search_hybrid 'okapi' right after create_note listed three notes the vectors chose (none holds
the word) and not the one note search_text found (U7, session 74, a served copy of kepano's
vault with the MCP TypeScript SDK client; the window is as long as the job's backlog, minutes
after a bulk import). search_memory had the same fault for observations (s73, 616ffca5);
search_notes' hybrid mode and graphrag_query fuse the same way."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from service.embeddings.builtin import BuiltinEmbedder
from tests.semantic.helpers import VAULT, semantic


async def test_a_note_waiting_for_its_vector_is_found_by_its_words(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with semantic(make_vault(VAULT)) as h:
        gate = asyncio.Event()
        real = BuiltinEmbedder.embed_documents

        async def held(self: BuiltinEmbedder, texts: list[str]) -> object:
            await gate.wait()
            return await real(self, texts)

        monkeypatch.setattr(BuiltinEmbedder, "embed_documents", held)
        try:
            await h.ok("create_note", path="Notes/Okapi facts.md", content="Okapis live in the Ituri rainforest.\n")
            for query in ("okapi", "okapis of the ituri rainforest"):
                out = await h.ok("search_hybrid", query=query, limit=3)
                assert out["complete"] is False
                assert out["items"][0]["path"] == "Notes/Okapi facts.md", (query, out["items"])
                assert out["items"][0]["chunk"] is None  # no chunk yet: the note itself
                notes = await h.ok("search_notes", query=query, mode="hybrid", limit=3)
                assert notes["items"][0]["path"] == "Notes/Okapi facts.md", (query, notes["items"])
                rag = await h.ok("graphrag_query", query=query, limit=3, hops=0)
                assert rag["items"][0]["path"] == "Notes/Okapi facts.md", (query, rag["items"])
        finally:
            gate.set()
