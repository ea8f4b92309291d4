"""A word only one note holds: that note leads search_hybrid. The fusion gave a note missing from
the text list that list's lowest score, and a list of one note has its own score as the lowest,
so every note the vectors found got the full text share too and the one note holding the word
won only ties: 'feline' listed the two notes about a kitten before the receipt that says it
(U7's open finding, session 74). A text list holding every note with one of the words now gives
the others no text score (search_hybrid, graphrag_query, context_for_query)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.semantic.helpers import VAULT, semantic

RECEIPT = "Finance/Receipt.md"
NOTES = {**VAULT, RECEIPT: "# Receipt\n\nTwelve euros paid at the Feline shop on Main Street for a parcel.\n"}


async def test_the_one_note_holding_the_word_leads(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as h:
        words = await h.ok("search_text", query="feline", limit=5)
        assert [i["path"] for i in words["items"]] == [RECEIPT]
        out = await h.ok("search_hybrid", query="feline", limit=3)
        assert out["items"][0]["path"] == RECEIPT, out["items"]
        assert len(out["items"]) == 3  # the vectors' notes still follow
        rag = await h.ok("graphrag_query", query="feline", limit=3, hops=0)
        assert rag["items"][0]["path"] == RECEIPT, rag["items"]
        context = await h.ok("context_for_query", query="feline", max_tokens=2000)
        assert context["passages"][0]["path"] == RECEIPT, context["passages"]
