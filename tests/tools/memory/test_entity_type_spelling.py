"""search_memory and read_memory_graph filter by `entityType`, as create_entities, open_nodes and
the MCP memory server's shapes spell it (U8 s75 #6: an agent's first `search_memory {entityType:
"person"}` was a validation_error listing `entity_type`). The schemas show `entityType`;
`entity_type`, the name before, is still taken, and a cursor made under one spelling pages on
under the other. Through the dispatch chain."""

from __future__ import annotations

from service.tools.registry import build_registry
from tests.conftest import Harness
from tests.tools.memory.test_memory_graph import PEOPLE


async def test_entity_type_is_taken_as_the_other_memory_tools_spell_it(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    for spelling in ("entityType", "entity_type"):
        found = await vg.ok("search_memory", query="pottery", **{spelling: "person"})
        assert {i["entity"] for i in found["items"]} == {"Melanie", "Caroline"}, (spelling, found)
        graph = await vg.ok("read_memory_graph", **{spelling: "PERSON"})
        assert graph["total"] == 2 and {e["name"] for e in graph["entities"]} == {"Melanie", "Caroline"}, graph
    first = await vg.ok("read_memory_graph", entityType="person", limit=1)
    rest = await vg.ok("read_memory_graph", entity_type="person", limit=1, cursor=first["next_cursor"])
    assert {e["name"] for e in first["entities"] + rest["entities"]} == {"Melanie", "Caroline"}
    await vg.err("read_memory_graph", "validation_error", entityType="company", cursor=first["next_cursor"])
    both = await vg.err("search_memory", "validation_error", query="x", entityType="person", entity_type="person")
    assert "entity_type" in str(both), both  # one spelling at a time
    specs = {spec.name: spec for spec in build_registry()}
    for tool in ("search_memory", "read_memory_graph"):  # what tools/list shows
        props = specs[tool].input_schema()["properties"]
        assert "entityType" in props and "entity_type" not in props, props
