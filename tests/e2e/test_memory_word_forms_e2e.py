"""search_memory over real HTTP with the SDK client (both protocol eras): a word finds its other
forms ('live' finds "Lives in Seattle", a0a67297) and a month named without a year picks the
observations of that month ('camping in July', 94c5c812)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok


async def test_recall_finds_word_forms_and_a_month_without_a_year(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n"})) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await ok(
            client,
            "create_entities",
            entities=[
                {"name": "Steph", "entityType": "person", "observations": ["CEO of Obsidian", "Lives in Seattle"]}
            ],
        )
        live = await ok(client, "search_memory", query="Where does Steph live?", limit=2)
        assert live["items"][0]["text"] == "Lives in Seattle"
        await ok(
            client,
            "add_observations",
            observations=[
                {"entityName": "Steph", "contents": ["Went camping in the mountains"], "date": "8 June, 2023"},
                {"entityName": "Steph", "contents": ["Went camping at the lake"], "date": "20 July, 2023"},
            ],
        )
        july = await ok(client, "search_memory", query="When did Steph go camping in July?", limit=2)
        assert july["items"][0]["text"] == "Went camping at the lake"
