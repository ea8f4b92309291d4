"""search_memory reads a word with or without its accents alike, as search_text does (the note
index's tokenizer removes diacritics): "crepes" found "Serves crêpes" only by meaning (score 0.5)
and, without embeddings, not at all (U8, session 75). Marks on other scripts' letters are kept."""

from __future__ import annotations

from tests.conftest import Harness


async def test_words_with_and_without_accents_find_each_other(vg: Harness) -> None:
    await vg.ok(
        "create_entities",
        entities=[
            {"name": "Chez Lou", "entityType": "place", "observations": ["Serves crêpes near the Zürich station"]},
            {"name": "Bar Nord", "entityType": "place", "observations": ["Serves naive cafe au lait"]},
        ],
    )
    for query, entity in (("crepes", "Chez Lou"), ("zurich", "Chez Lou"), ("naïve café", "Bar Nord")):
        out = await vg.ok("search_memory", query=query)
        assert out["items"] and out["items"][0]["entity"] == entity, (query, out["items"])
