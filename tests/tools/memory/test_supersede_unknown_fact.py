"""supersede_observation naming an observation the entity does not have says where to look (M4
s71): an agent superseding 'Lives in Boston' by 'Lives in Sweden' before recording the newer
fact got note_not_found with the note tools' hint, 'Check the path with list_notes or
search_text', which sends it to look for a path; the hint now names open_nodes (the entity's
observations and their block ids) and add_observations. Nothing is written."""

from __future__ import annotations

from tests.conftest import Harness


async def test_an_observation_the_entity_lacks_names_where_its_observations_are(vg: Harness) -> None:
    facts = {"name": "Caroline", "entityType": "person", "observations": ["Lives in Boston"]}
    await vg.ok("create_entities", entities=[facts])
    before = vg.snapshot()
    missed = await vg.err(
        "supersede_observation",
        "note_not_found",
        entityName="Caroline",
        observation="Lives in Boston",
        superseded_by="Lives in Sweden",
    )
    assert missed["details"] == {"field": "superseded_by", "entity": "Caroline"}
    assert "open_nodes" in missed["hint"] and "list_notes" not in missed["hint"]
    assert vg.snapshot() == before
