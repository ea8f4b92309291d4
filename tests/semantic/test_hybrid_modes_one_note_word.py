"""A word only one note holds leads search_notes' and search_vault's hybrid modes too, as it leads
search_hybrid since 9c16f7f8. Their text ranking holds every note the query's words find, and the
fusion gave a note outside it that ranking's lowest score: a ranking of one note has its own
score as the lowest, so every note the vectors found got the full text share and the note
holding the word won only ties ('feline' listed the two notes about a kitten before the receipt
that says it). A note outside a complete text ranking now gets text score 0 (`hybrid.fuse`'s
`text_complete`). A text ranking cut short (the strict pass of a plain word list found enough
notes, so the relaxed one did not run) keeps the floor: a note outside may hold some words."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.retrieval import fusion, text
from tests.semantic.helpers import VAULT, semantic

RECEIPT = "Finance/Receipt.md"
NOTES = {**VAULT, RECEIPT: "# Receipt\n\nTwelve euros paid at the Feline shop on Main Street for a parcel.\n"}


async def test_the_one_note_holding_the_word_leads_the_hybrid_modes(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as h:
        words = await h.ok("search_notes", mode="full_text", query="feline", limit=5)
        assert [i["path"] for i in words["items"]] == [RECEIPT]
        notes = await h.ok("search_notes", mode="hybrid", query="feline", limit=3)
        assert notes["items"][0]["path"] == RECEIPT, notes["items"]
        assert len(notes["items"]) == 3  # the vectors' notes still follow
        assert notes["items"][1]["score"] < notes["items"][0]["score"]
        vault = await h.ok("search_vault", mode="hybrid", query="feline", limit=3)
        assert vault["items"][0]["path"] == RECEIPT, vault["items"]
        assert len(vault["items"]) == 3
        assert vault["items"][1]["score"] < vault["items"][0]["score"]


def _hit(note_id: int, match: text.Match) -> text.TextHit:
    return text.TextHit(note_id, f"{note_id}.md", "", 0.0, 1.0, match)


def test_a_ranking_is_complete_unless_the_relaxed_pass_was_skipped() -> None:
    strict = [_hit(1, "all"), _hit(2, "all")]
    assert fusion.complete(strict, None, 10)  # one pass only (a single word, AND / OR written)
    assert fusion.complete([*strict, _hit(3, "any")], '"a" OR "b"', 10)  # the relaxed pass ran
    assert fusion.complete(strict, '"a" OR "b"', 3)  # it ran and found no more
    assert not fusion.complete(strict, '"a" OR "b"', 2)  # strict found enough: it did not run
