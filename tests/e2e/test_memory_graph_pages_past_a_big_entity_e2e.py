"""tests/tools/memory/test_memory_graph_pages_past_a_big_entity.py over HTTP with the SDK client
(both eras): read_memory_graph lists an entity too big for one answer without its observations
(`truncated`, `observations_left_out`) and its cursor reaches the entities after it; before A4
s95 every page holding it was `overflow`, down to `limit: 1`, with no cursor."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_memory_graph_pages_past_a_big_entity import entity


async def test_the_graph_pages_past_a_big_entity_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    files = {"Memory/AAA.md": entity("AAA", 20_000), "Memory/Bob.md": entity("Bob", 2)}
    async with e2e(make_vault(files)) as (url, _), Client(url, mode=mode) as c:
        first = await ok(c, "read_memory_graph", limit=1)
        assert [(e["name"], e["observations"]) for e in first["entities"]] == [("AAA", [])], first
        assert (first["truncated"], first["observations_left_out"]) == (True, ["AAA"])
        rest = await ok(c, "read_memory_graph", limit=1, cursor=first["next_cursor"])
        assert [(e["name"], len(e["observations"])) for e in rest["entities"]] == [("Bob", 2)], rest


async def test_open_nodes_answers_with_a_big_entity_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    files = {"Memory/AAA.md": entity("AAA", 20_000), "Memory/Bob.md": entity("Bob", 2)}
    async with e2e(make_vault(files)) as (url, _), Client(url, mode=mode) as c:
        opened = await ok(c, "open_nodes", names=["AAA", "Bob"])
        assert [(e["name"], len(e["observations"])) for e in opened["entities"]] == [("AAA", 0), ("Bob", 2)]
        assert (opened["truncated"], opened["observations_left_out"]) == (True, ["AAA"])
