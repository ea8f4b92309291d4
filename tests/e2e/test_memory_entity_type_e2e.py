"""tests/tools/memory/test_entity_type_spelling.py over HTTP with the SDK client (both eras): the
schema tools/list shows for search_memory names `entityType`, a call with it
filters, and one with the old `entity_type` still does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_memory_graph import PEOPLE


async def test_memory_reads_take_entity_type_as_create_entities_spells_it_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n"})) as (url, _h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        tools = {t.name: t for t in (await c.list_tools()).tools}  # the default (lean) list holds search_memory
        assert "entityType" in tools["search_memory"].input_schema["properties"], tools["search_memory"]
        await ok(c, "create_entities", entities=PEOPLE)
        found = await ok(c, "search_memory", query="pottery", entityType="person")
        assert {i["entity"] for i in found["items"]} == {"Melanie", "Caroline"}, found
        assert (await ok(c, "read_memory_graph", entityType="company"))["total"] == 1
        assert (await ok(c, "read_memory_graph", entity_type="person"))["total"] == 2
