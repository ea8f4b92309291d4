"""A new entity's name that shows as an existing entity's is refused (A4 s95), through the dispatch
chain. create_entities and memory_store made `Ann\\u200b` (zero-width space), `An\\u00adn` (soft
hyphen), `Ann\\ufeff` (BOM), `Ann\\u202e` (a right-to-left override) beside the entity Ann, their
notes `Memory/Ann~200B.md`...: open_nodes, read_memory_graph and the note's title showed each as a
second "Ann", so an agent could plant facts under a name that passes for a person's. Now such a
name, when without the characters that show nothing it is an entity's the caller has, is
`validation_error` (`looks_like`, naming it), nothing written. A name holding them that shows as
no entity is still made (text copied from the web holds soft hyphens: R4 s62 F2), a joiner that
scripts and emoji need is taken, and an entity so named already (by hand) is found and written to."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Lives in Oslo ^m-a\n"
OLD = '---\nname: "Old\\u200bName"\nentityType: person\n---\n# Old\n\n## Observations\n- Was made by hand ^m-o\n'


@pytest.mark.parametrize("name", ["Ann\u200b", "\u200bAnn", "An\u00adn", "Ann\ufeff", "Ann\u202e", "A\u2066nn"])
async def test_a_new_name_that_passes_for_another_is_refused(make_vault: Callable[..., Path], name: str) -> None:
    async with started(make_vault({"Memory/Ann.md": ANN})) as vg:
        before = vg.snapshot()
        error = await vg.err("create_entities", "validation_error", entities=[{"name": name, "entityType": "person"}])
        assert error["details"] == {
            "field": "entities[0].name",
            "reason": "looks_like",
            "entity": "Ann",
            "path": "Memory/Ann.md",
        }, error
        error = await vg.err("memory_store", "validation_error", key=name, value="Owes me money")
        assert (error["details"]["field"], error["details"]["reason"]) == ("key", "looks_like"), error
        assert vg.changed_since(before) == set()
        assert [e["name"] for e in (await vg.ok("read_memory_graph"))["entities"]] == ["Ann"]


async def test_joiners_scripts_need_are_taken_and_a_hand_made_name_is_found(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Ann.md": ANN, "Memory/Old~200BName.md": OLD})) as vg:
        names = ["\U0001f469\u200d\U0001f4bb Dev", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "Ho\u00adme"]
        made = await vg.ok("create_entities", entities=[{"name": n, "entityType": "person"} for n in names])
        assert [e["name"] for e in made["created"]] == names, made
        again = await vg.ok("create_entities", entities=[{"name": "Old\u200bName", "entityType": "person"}])
        assert (again["created"], again["existing"]) == ([], ["Old\u200bName"]), again
        stored = await vg.ok("memory_store", key="Old\u200bName", value="Still here")
        assert stored["path"] == "Memory/Old~200BName.md", stored


async def test_an_entity_hidden_from_the_caller_is_not_named(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Memory/Ann.md", "read": "deny", "write": "deny"}]}
    async with started(make_vault({"Memory/Ann.md": ANN}), acl=acl) as vg:
        made = await vg.ok("create_entities", entities=[{"name": "Ann\u200b", "entityType": "person"}])
        assert [e["path"] for e in made["created"]] == ["Memory/Ann~200B.md"], made
