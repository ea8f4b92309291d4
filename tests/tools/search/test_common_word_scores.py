"""search_text showed a score of 0 on every hit of a word found in over half the notes
('obsidian' in the Help vault, found by U7 in session 74): FTS5's BM25 floors such a word's
weight at 1e-6 and the answer rounded scores to four decimals, so the page's order was real and
its scores all said 0. Now a score below 0.01 keeps three significant digits."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

VAULT = {
    "One.md": "# One\n\nVault vault vault notes.\n",
    "Two.md": "# Two\n\nA vault of notes and more words besides the vault.\n",
    "Three.md": "# Three\n\nThe vault once, and many other words around it, many many more words here.\n",
    "Four.md": "# Four\n\nNothing of the kind.\n",
}


async def test_a_word_in_most_notes_has_scores_that_order_the_page(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        out = await vg.ok("search_text", query="vault", limit=10)
        scores = [i["score"] for i in out["items"]]
        assert [i["path"] for i in out["items"]][0] == "One.md"
        assert len(scores) == 3 and all(s > 0 for s in scores), scores
        assert scores == sorted(scores, reverse=True) and scores[0] > scores[-1], scores
        rare = await vg.ok("search_text", query="kind", limit=10)
        assert rare["items"][0]["score"] == round(rare["items"][0]["score"], 4) > 0.01
