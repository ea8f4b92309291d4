"""read_memory_graph pages past an entity too big for one answer, and open_nodes answers with it
(A4 s95), through the dispatch chain. A page over the response limit is `overflow` (ask for
less), and an entity of 20,000 short observations (1.5 MB of note; what add_observations writes
in 20 calls) was over it alone: every page holding it, down to `limit: 1`, was refused with no
cursor, so no agent could list the entities after it (named `AAA`, the first). Now a page leaves
out the observations of its biggest entities until it fits (`observations_left_out` names them,
`truncated` is set; search_memory finds their observations), and its cursor goes on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


def entity(name: str, facts: int) -> str:
    head = f"---\nname: {name}\nentityType: topic\n---\n# {name}\n\n## Observations\n"
    return head + "".join(f"- fact number {i} of {name} ^m-{i}\n" for i in range(facts)) + "\n## Relations\n"


async def test_the_graph_pages_past_an_entity_over_the_response_limit(make_vault: Callable[..., Path]) -> None:
    files = {"Memory/AAA.md": entity("AAA", 20_000) + "- knows [[Memory/Bob]]\n", "Memory/Bob.md": entity("Bob", 2)}
    files["Memory/Cat.md"] = entity("Cat", 3)
    async with started(make_vault(files)) as vg:
        first = await vg.ok("read_memory_graph", limit=2)
        assert [(e["name"], len(e["observations"])) for e in first["entities"]] == [("AAA", 0), ("Bob", 2)], first
        assert (first["truncated"], first["observations_left_out"]) == (True, ["AAA"])
        assert first["relations"] == [{"from": "AAA", "to": "Bob", "relationType": "knows"}]
        rest = await vg.ok("read_memory_graph", limit=2, cursor=first["next_cursor"])
        assert [(e["name"], len(e["observations"])) for e in rest["entities"]] == [("Cat", 3)], rest
        assert (rest["truncated"], rest["observations_left_out"], rest["next_cursor"]) == (False, [], None)
        found = await vg.ok("search_memory", query="fact number 19999 of AAA", limit=1)
        assert found["items"][0]["block_id"] == "m-19999", found


async def test_open_nodes_answers_with_an_entity_over_the_response_limit(make_vault: Callable[..., Path]) -> None:
    """open_nodes answers whole (no paging): an entity over the limit made every call naming it
    `overflow`, the other names of the call unanswered too. Now its observations are left out."""
    files = {"Memory/AAA.md": entity("AAA", 20_000) + "- knows [[Memory/Bob]]\n", "Memory/Bob.md": entity("Bob", 2)}
    async with started(make_vault(files)) as vg:
        opened = await vg.ok("open_nodes", names=["AAA", "Bob", "Nobody"])
        assert [(e["name"], len(e["observations"])) for e in opened["entities"]] == [("AAA", 0), ("Bob", 2)]
        assert (opened["truncated"], opened["observations_left_out"], opened["missing"]) == (True, ["AAA"], ["Nobody"])
        assert opened["relations"] == [{"from": "AAA", "to": "Bob", "relationType": "knows"}]
        small = await vg.ok("open_nodes", names=["Bob"])
        assert (small["truncated"], small["observations_left_out"]) == (False, [])
