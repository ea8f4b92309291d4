"""Several findings about one entity are applied one after another without a run between them:
the plan of the first changes the entity's note, and the next finding still holds (its two
observations are there as they were found), so it is applied too. A finding whose observation was
changed since is still refused (`conflict`)."""

from __future__ import annotations

from typing import Any

from tests.conftest import Harness

FACTS = [
    ("Owns 2 cars", "2020-01-01"),
    ("Works at Acme", "2020-01-01"),
    ("Owns two cars", "2020-02-01"),
    ("Works at Globex", "2023-01-01"),
    ("Lives in Paris", "2020-01-01"),
    ("Moved to Rome", "2023-01-01"),
]


async def _findings(vg: Harness) -> list[dict[str, Any]]:
    await vg.ok("run_consolidation", wait=True, jobs=["duplicates", "contradictions"])
    return list((await vg.ok("list_findings", limit=100))["items"])


async def test_findings_of_one_entity_apply_one_after_another(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": []}])
    for text, day in FACTS:
        await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": [text], "date": day}])
    found = await _findings(vg)
    assert sorted(f["kind"] for f in found) == ["contradiction", "contradiction", "near_duplicate"]
    for f in found:
        assert (await vg.ok("apply_finding", finding_id=f["id"]))["status"] == "applied"
    ann = (await vg.ok("open_nodes", names=["Ann"]))["entities"][0]["observations"]
    assert [o["text"] for o in ann] == [
        "Owns 2 cars",
        "Works at Acme",
        "Works at Globex",
        "Lives in Paris",
        "Moved to Rome",
    ]
    assert [o["superseded_by"] is not None for o in ann] == [False, True, False, True, False]


async def test_a_finding_whose_observation_changed_is_refused(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Bo", "entityType": "person", "observations": []}])
    for text, day in FACTS[:4]:
        await vg.ok("add_observations", observations=[{"entityName": "Bo", "contents": [text], "date": day}])
    found = {f["kind"]: f for f in await _findings(vg)}
    note = vg.root / "Memory" / "Bo.md"
    note.write_text(note.read_text().replace("Works at Globex", "Works at Globex (part time)"))
    err = await vg.err("apply_finding", "conflict", finding_id=found["contradiction"]["id"])
    assert err["details"]["path"] == "Memory/Bo.md"
    assert (await vg.ok("apply_finding", finding_id=found["near_duplicate"]["id"]))["status"] == "applied"
