"""A relation a person writes in Obsidian links the entity by its bare name (M4 s71):
`- sister_of [[Melanie]]` under Caroline's `## Relations` is what Obsidian's default link format
writes for Memory/Melanie.md, but the memory tools compared it with the path `Memory/Melanie` the
tools write: open_nodes of Melanie did not list it among the relations to her, read_memory_graph
named its target by the file name (`AC~2FDC` for AC/DC), create_relations added the same relation
again, delete_relations of it by the entity's link left it, and delete_entities did not report
it dangling."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started


def entity(name: str, relations: str = "") -> str:
    head = f'---\nname: "{name}"\nentityType: "person"\n---\n# {name}\n\n'
    return head + f"## Observations\n- Is here\n\n## Relations\n{relations}"


VAULT = {
    "Memory/Caroline.md": entity("Caroline", "- sister_of [[Melanie]]\n- listens_to [[AC~2FDC|the band]]\n"),
    "Memory/Melanie.md": entity("Melanie"),
    "Memory/AC~2FDC.md": entity("AC/DC"),
}
SISTER = {"from": "Caroline", "to": "Melanie", "relationType": "sister_of"}
LISTENS = {"from": "Caroline", "to": "AC/DC", "relationType": "listens_to"}


@pytest.mark.covers("open_nodes", "success")
async def test_a_bare_link_relation_is_read_as_one_to_the_entity(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        assert (await vg.ok("open_nodes", names=["Melanie"]))["relations"] == [SISTER]
        assert (await vg.ok("open_nodes", names=["AC/DC"]))["relations"] == [LISTENS]
        assert (await vg.ok("open_nodes", names=["Caroline"]))["relations"] == [SISTER, LISTENS]
        assert (await vg.ok("read_memory_graph"))["relations"] == [SISTER, LISTENS]


async def test_a_bare_link_relation_is_not_made_twice_and_is_deleted(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        before = vg.read("Memory/Caroline.md")
        again = await vg.ok("create_relations", relations=[SISTER])
        assert again["created"] == [] and again["skipped_duplicates"] == [SISTER]
        assert vg.read("Memory/Caroline.md") == before
        gone = await vg.ok("delete_relations", relations=[SISTER | {"to": "[[Memory/Melanie]]"}])
        assert gone["deleted"] == 1 and "[[Melanie]]" not in vg.read("Memory/Caroline.md")


async def test_deleting_an_entity_reports_a_bare_link_to_it(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        out = await vg.confirmed("delete_entities", entityNames=["AC/DC"])
        assert out["deleted"] == ["AC/DC"] and out["dangling_relations"] == [LISTENS]
