"""tests/tools/memory/test_relations_list_the_memory_once.py over HTTP with the SDK client (both
eras): create_relations of 100 relations to ordinary notes, from an entity renamed by hand, lists
the memory folder a few times, not once a relation (before A4 s95: 103 listings, each a stat of
every entity note on the event loop)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.memory import lookup
from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_relations_list_the_memory_once import entity


async def test_one_listing_a_call_over_http(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    files = {f"Memory/E{i}.md": entity(f"E{i}") for i in range(50)} | {
        f"Notes/N{i}.md": f"# N{i}\n" for i in range(100)
    }
    files["Memory/Renamed.md"] = entity("Ann Lee")
    listings: list[str] = []
    real = lookup._listed  # one call a listing of the folder

    def counting(*args: Any) -> Any:
        listings.append(args[2])
        return real(*args)

    async with e2e(make_vault(files)) as (url, h), Client(url, mode=mode) as c:
        await h.settled()
        monkeypatch.setattr(lookup, "_listed", counting)
        relations = [{"from": "Ann Lee", "to": f"N{i}", "relationType": "mentions"} for i in range(100)]
        made = await ok(c, "create_relations", relations=relations)
        assert len(made["created"]) == 100
        assert len(listings) <= 4, len(listings)
