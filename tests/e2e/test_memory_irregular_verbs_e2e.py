"""search_memory over real HTTP with the SDK client (both protocol eras): an irregular verb's past
forms find the verb ('go' finds "Went to Lisbon in May", 'draw' finds "Drew a horse"); before s78
the stemmer left them apart and words alone matched nothing of them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

ANN = {"name": "Ann", "entityType": "person", "observations": ["Likes tea", "Went to Lisbon in May", "Drew a horse"]}


async def test_recall_finds_an_irregular_verbs_past_forms(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n"})) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await ok(client, "create_entities", entities=[ANN])
        went = await ok(client, "search_memory", query="Where did Ann go?", limit=2)
        assert went["items"][0]["text"] == "Went to Lisbon in May", went
        drew = await ok(client, "search_memory", query="What did Ann draw?", limit=2)
        assert drew["items"][0]["text"] == "Drew a horse", drew
