"""search_memory over real HTTP with the SDK client (both protocol eras): a person's first name
is the person ("Where does Steph live?" is about Steph Ango: "Lives in Seattle" first, not
another person's "Lives next door to Steph"). Words only: over three observations the built-in
embeddings' min-max scaled cosine decides the order by itself (tests/bench/bench_memory_names.py
measures the first names with them too)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

FACTS = [
    ("Steph Ango", "Lives in Seattle"),
    ("Steph Ango", "Works at Obsidian"),
    ("Priya Raman", "Lives next door to Steph"),
    ("Priya Raman", "Lives in Lisbon"),
]


async def test_a_first_name_is_the_person(make_vault: Callable[..., Path], mode: str) -> None:
    vault = make_vault({"Home.md": "# Home\n"})
    async with e2e(vault, embeddings={"provider": "none"}) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        people = [{"name": n, "entityType": "person"} for n in ("Steph Ango", "Priya Raman")]
        await ok(client, "create_entities", entities=people)
        for n, (name, text) in enumerate(FACTS):
            batch = [{"entityName": name, "contents": [text], "date": f"2024-01-0{n + 1}"}]
            await ok(client, "add_observations", observations=batch)
        found = await ok(client, "search_memory", query="Where does Steph live?", limit=3)
        assert (found["items"][0]["entity"], found["items"][0]["text"]) == ("Steph Ango", "Lives in Seattle")
