"""Session 76, search_notes' and search_vault's hybrid modes over real HTTP with the SDK client
(both eras): a word only one note holds puts that note first, as in search_hybrid (their fusion
gave every note the vectors found that one note's own text score as the floor)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.semantic.helpers import model_ready, settled
from tests.semantic.test_hybrid_modes_one_note_word import NOTES, RECEIPT


async def test_the_hybrid_modes_put_the_one_note_holding_the_word_first(
    make_vault: Callable[..., Path], mode: str
) -> None:
    await model_ready()
    embeddings = {"provider": "builtin", "debounce_ms": 0}
    async with e2e(make_vault(NOTES), embeddings=embeddings) as (url, harness):
        await settled(harness)
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            notes = await ok(client, "search_notes", {"mode": "hybrid", "query": "feline", "limit": 3})
            assert [i["path"] for i in notes["items"]][:1] == [RECEIPT], notes["items"]
            vault = await ok(client, "search_vault", {"mode": "hybrid", "query": "feline", "limit": 3})
            assert [i["path"] for i in vault["items"]][:1] == [RECEIPT], vault["items"]
            assert len(vault["items"]) == 3  # the vectors' notes follow
