"""An entity note saved in Latin-1 (an old editor): `Memory/Zoe.md` with `name: Zoé`. The index and
read_memory_graph read it as the file layer does (cp1252), so the graph lists `Zoé`; the name lookup
(`service.memory.store.note_named`) read the note's start as UTF-8 with U+FFFD, so `Zo\ufffd` was
no `Zoé` and every tool taking the name missed it (T1 s63 #9): open_nodes listed it missing,
delete_entities deleted nothing, add_observations answered not_found. Through the dispatch chain
and over HTTP with the SDK client."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from tests.conftest import e2e, started

ZOE = "---\nname: Zoé\nentityType: person\n---\n## Observations\n- aime le café\n".encode("latin-1")


async def test_a_latin1_entity_is_found_by_the_name_the_graph_lists(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Zoe.md": ZOE, "Memory/Ann.md": "---\nname: Ann\n---\n"})) as vg:
        graph = await vg.ok("read_memory_graph")
        assert "Zoé" in [e["name"] for e in graph["entities"]], graph
        opened = await vg.ok("open_nodes", names=["Zoé"])
        assert opened["missing"] == [] and [e["name"] for e in opened["entities"]] == ["Zoé"], opened
        assert [o["text"] for o in opened["entities"][0]["observations"]] == ["aime le café"], opened
        await vg.ok("add_observations", observations=[{"entityName": "Zoé", "contents": ["lit Proust"]}])
        text = (vg.root / "Memory/Zoe.md").read_text(encoding="cp1252")  # written back in its encoding (s83)
        assert "name: Zoé\n" in text and "aime le café" in text and "lit Proust" in text, text
        assert not (vg.root / "Memory/Zoé.md").exists()  # no second note for the same entity
        await vg.ok("create_relations", relations=[{"from": "Ann", "to": "Zoé", "relationType": "knows"}])
        deleted = await vg.confirmed("delete_entities", entityNames=["Zoé"])
        assert deleted["deleted"] == ["Zoé"] and deleted["missing"] == [], deleted
        assert not (vg.root / "Memory/Zoe.md").exists()


async def test_a_latin1_entity_is_found_by_name_over_http(make_vault: Callable[..., Path]) -> None:
    async def accept(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"confirm": True})

    root = make_vault({"Memory/Zoe.md": ZOE})
    async with e2e(root) as (url, _), Client(url, mode="legacy", elicitation_callback=accept) as client:
        graph = (await client.call_tool("read_memory_graph", {})).structured_content
        assert graph is not None and [e["name"] for e in graph["entities"]] == ["Zoé"], graph
        opened = (await client.call_tool("open_nodes", {"names": ["Zoé"]})).structured_content
        assert opened is not None and opened["missing"] == [], opened
        assert [e["name"] for e in opened["entities"]] == ["Zoé"], opened
        result = await client.call_tool("delete_entities", {"entityNames": ["Zoé"]})
        assert not result.is_error and result.structured_content is not None, result.structured_content
        assert result.structured_content["deleted"] == ["Zoé"], result.structured_content
    assert not (root / "Memory/Zoe.md").exists()
