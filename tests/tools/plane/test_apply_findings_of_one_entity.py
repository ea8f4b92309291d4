"""Several findings about one entity are applied one after another without a run between them:
the plan of the first changes the entity's note, and the next finding still holds (its two
observations are there as they were found), so it is applied too. A finding whose observation was
changed since is still refused (`conflict`). A near duplicate never deletes the observation a
supersession names (the other of the two goes)."""

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
    assert [o["text"] for o in ann] == [  # of two that say the same, dated on other days, the later-dated stays
        "Works at Acme",
        "Owns two cars",
        "Works at Globex",
        "Lives in Paris",
        "Moved to Rome",
    ]
    assert [o["superseded_by"] is not None for o in ann] == [True, False, False, True, False]


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


async def test_a_contradiction_applies_after_its_newer_observation_was_superseded(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Cy", "entityType": "person", "observations": []}])
    for text, day in (("Owns 1 car", "2020-01-01"), ("Owns 2 cars", "2021-01-01"), ("Owns 3 cars", "2022-01-01")):
        await vg.ok("add_observations", observations=[{"entityName": "Cy", "contents": [text], "date": day}])
    found = {f["detail"]["older"]: f for f in await _findings(vg) if f["kind"] == "contradiction"}
    assert set(found) == {"Owns 1 car", "Owns 2 cars"}
    await vg.ok("apply_finding", finding_id=found["Owns 2 cars"]["id"])  # the newer of the other is superseded now
    await vg.ok("apply_finding", finding_id=found["Owns 1 car"]["id"])
    cy = (await vg.ok("open_nodes", names=["Cy"]))["entities"][0]["observations"]
    ids = [o["block_id"] for o in cy]
    assert [o["superseded_by"] for o in cy] == [ids[1], ids[2], None]


async def test_a_near_duplicate_keeps_the_observation_a_supersession_names(vg: Harness) -> None:
    lines = [
        "- Has three bikes [date:: 2022-01-01] ^m-a",
        "- Has 1 bike [date:: 2020-01-01] [superseded_by:: ^m-c] ^m-b",
        "- Has 3 bikes [date:: 2023-01-01] ^m-c",
    ]
    front = "---\nname: Di\nentityType: person\n---\n# Di\n\n## Observations\n"
    (vg.root / "Memory").mkdir(exist_ok=True)
    (vg.root / "Memory" / "Di.md").write_text(front + "\n".join(lines) + "\n", encoding="utf-8")
    near = [f for f in await _findings(vg) if f["kind"] == "near_duplicate"]
    assert [(f["detail"]["kept_block_id"], f["detail"]["duplicate_block_id"]) for f in near] == [("m-c", "m-a")]
    await vg.ok("apply_finding", finding_id=near[0]["id"])
    di = (await vg.ok("open_nodes", names=["Di"]))["entities"][0]["observations"]
    assert [(o["text"], o["superseded_by"]) for o in di] == [("Has 1 bike", "m-c"), ("Has 3 bikes", None)]


async def test_a_fact_that_holds_again_stays_current(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Ed", "entityType": "person", "observations": []}])
    for text, day in (
        ("Works at Acme", "2020-01-01"),
        ("Works at Globex", "2023-01-01"),
        ("Works at Acme", "2024-01-01"),
    ):
        await vg.ok("add_observations", observations=[{"entityName": "Ed", "contents": [text], "date": day}])
    added = await vg.ok("open_nodes", names=["Ed"])
    assert len(added["entities"][0]["observations"]) == 3  # the 2024 statement is recorded, not skipped
    for day in ("2020-01-01", "2024-01-01"):  # a plain repeat on another day (nothing changed between): skipped
        out = await vg.ok(
            "add_observations", observations=[{"entityName": "Ed", "contents": ["Likes tea"], "date": day}]
        )
    assert out["results"][0]["skipped_duplicates"] == ["Likes tea"]
    for _ in range(2):  # whatever the order: the repeat of 2020 goes, or is superseded; the 2024 one stays
        for f in await _findings(vg):
            result = await vg.call("apply_finding", finding_id=f["id"])
            assert not result.is_error or (result.structured or {})["error"]["code"] == "conflict", result.structured
    ed = (await vg.ok("open_nodes", names=["Ed"]))["entities"][0]["observations"]
    current = [(o["text"], o["date"]) for o in ed if o["superseded_by"] is None and o["text"] != "Likes tea"]
    assert current == [("Works at Acme", "2024-01-01")]
