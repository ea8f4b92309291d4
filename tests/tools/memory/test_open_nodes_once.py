"""open_nodes lists each entity once, however many of the names given reach it: its name, the
file name a person's rename in the frontmatter left it (which still reaches the note), a link to
its note, or the same name twice — as the MCP memory server lists each entity once. Before, an
entity named twice came back twice, and a missing name given twice was listed missing twice."""

from __future__ import annotations

from tests.conftest import Harness


async def test_each_entity_is_opened_once_whatever_names_reach_it(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Alice", "entityType": "person", "observations": ["tea"]}])
    await vg.ok("set_properties", path="Memory/Alice", properties={"name": "Alice Liddell"})  # renamed by hand
    names = ["Alice Liddell", "Alice", "[[Memory/Alice]]", "Alice Liddell", "Nobody", "Nobody"]
    opened = await vg.ok("open_nodes", names=names)
    assert [(e["name"], e["path"]) for e in opened["entities"]] == [("Alice Liddell", "Memory/Alice.md")]
    assert opened["missing"] == ["Nobody"]
