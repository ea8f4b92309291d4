"""Search answers a user meets, end to end (a real uvicorn server, the SDK's Streamable HTTP
client in both protocol eras; session 75): a word in most notes has scores that are not all 0
(abf1b243), and a word only one note holds puts that note first in search_hybrid,
graphrag_query and context_for_query (9c16f7f8)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok as _ok
from tests.semantic.helpers import VAULT, model_ready, settled

RECEIPT = "Finance/Receipt.md"
NOTES = {**VAULT, RECEIPT: "# Receipt\n\nTwelve euros paid at the Feline shop on Main Street for a parcel.\n"}


async def test_common_word_scores_and_a_one_note_word_first(make_vault: Callable[..., Path], mode: str) -> None:
    await model_ready()
    embeddings = {"provider": "builtin", "debounce_ms": 0}
    async with e2e(make_vault(NOTES), embeddings=embeddings) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await settled(h)
        for n in range(9):  # 9 of 16 notes: BM25 floors the word's weight
            await _ok(
                c, "create_note", path=f"Common/Note {n}.md", content=f"# Note {n}\n\nThe ledger{' ledger' * n}.\n"
            )
        common = await _ok(c, "search_text", query="ledger", limit=10)
        scores = [i["score"] for i in common["items"]]
        assert len(scores) == 9 and all(0 < s < 0.01 for s in scores) and scores == sorted(scores, reverse=True)
        out = await _ok(c, "search_hybrid", query="feline", limit=3)
        assert out["items"][0]["path"] == RECEIPT, out["items"]
        rag = await _ok(c, "graphrag_query", query="feline", limit=3, hops=0)
        assert rag["items"][0]["path"] == RECEIPT
        context = await _ok(c, "context_for_query", query="feline", max_tokens=2000)
        assert context["passages"][0]["path"] == RECEIPT


async def test_search_memory_reads_accents_as_search_text(make_vault: Callable[..., Path], mode: str) -> None:
    """'crepes' finds the observation 'Serves crêpes' with embeddings off (73037c65)."""
    async with e2e(make_vault({"Home.md": "# Home\n"})) as (url, _h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        entity = {"name": "Chez Lou", "entityType": "place", "observations": ["Serves crêpes near the station"]}
        await _ok(c, "create_entities", entities=[entity])
        out = await _ok(c, "search_memory", query="crepes")
        assert out["items"] and out["items"][0]["entity"] == "Chez Lou"
