"""A merge of entities that are one makes the relations other entities had to the merged one
relations to the entity kept through the memory tools: those entities' `updated` moves, so an
agent syncing by `read_memory_graph {updated_since}` learns that their relation points elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


def entity(name: str, observation: str, relations: str = "") -> str:
    head = f'---\nname: "{name}"\nentityType: person\naliases: []\ncreated: "2026-01-01T00:00:00Z"\n'
    return head + f'updated: "2026-01-01T00:00:00Z"\n---\n# {name}\n\n## Observations\n- {observation}\n{relations}'


VAULT = {
    "Home.md": "# Home\n",
    "Memory/José Ruiz.md": entity("José Ruiz", "Born in Madrid ^j1"),
    "Memory/Jose Ruiz.md": entity("Jose Ruiz", "Speaks Spanish ^k1"),
    "Memory/Gail.md": entity("Gail", "Likes tea ^g1", "\n## Relations\n- friend_of [[Memory/José Ruiz]]\n"),
    "Memory/Hugo.md": entity("Hugo", "Likes jazz ^h1", "\n## Relations\n- friend_of [[Memory/Jose Ruiz]]\n"),
}


async def test_a_merge_moves_the_updated_of_the_entities_whose_relations_it_repoints(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        [found] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
        await vg.confirmed("apply_finding", finding_id=found["id"])
        kept = found["detail"]["keep"]
        changed = await vg.ok("read_memory_graph", updated_since="2026-06-01")
        nodes = await vg.ok("open_nodes", names=["Gail"])
    assert {e["name"] for e in changed["entities"]} == {kept, "Gail"}  # Hugo's relation did not change
    assert {(r["from"], r["relationType"], r["to"]) for r in nodes["relations"]} == {("Gail", "friend_of", kept)}
