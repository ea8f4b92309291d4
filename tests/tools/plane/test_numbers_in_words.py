"""A number in words is the number: "Owns 2 cars" / "Owns two cars" say the same (a near duplicate),
"Owns two cars" / "Owns three cars" (or "Owns 3 cars") state two counts of one thing (a
contradiction, never a duplicate), and the guards of the duplicates job still hold."""

from __future__ import annotations

from typing import Any

from tests.conftest import Harness

SAME = [("Owns 2 cars", "Owns two cars"), ("Speaks 4 languages", "Speaks four languages")]
OTHER_COUNT = [
    ("Owns two cars", "Owns 3 cars"),
    ("Has two children", "Has three children"),
    ("Is 34 years old", "Is 35 years old"),
]
NEITHER = [
    ("Has 2 meetings on Monday", "Has 3 meetings on Tuesday"),  # counts of other things
    ("Prefers email over phone", "Prefers phone over email"),  # turned round: a change, no count
    ("Agent 1 noted item 2", "Agent 2 noted item 1"),  # the same numbers, beside other words
]


async def _entity(vg: Harness, name: str, old: str, new: str) -> None:
    await vg.ok("create_entities", entities=[{"name": name, "entityType": "person", "observations": []}])
    for text, day in ((old, "2020-01-01"), (new, "2024-01-01")):
        batch: list[dict[str, Any]] = [{"entityName": name, "contents": [text], "date": day}]
        await vg.ok("add_observations", observations=batch)


async def test_numbers_in_words_compare_as_numbers(vg: Harness) -> None:
    for i, (old, new) in enumerate([*SAME, *OTHER_COUNT, *NEITHER]):
        await _entity(vg, f"P{i}", old, new)
    await vg.ok("run_consolidation", wait=True, jobs=["duplicates", "contradictions"])
    found = (await vg.ok("list_findings", limit=100))["items"]
    near = {(f["detail"]["kept"], f["detail"]["duplicate"]) for f in found if f["kind"] == "near_duplicate"}
    contradictions = {(f["detail"]["older"], f["detail"]["newer"]) for f in found if f["kind"] == "contradiction"}
    assert near == {(new, old) for old, new in SAME}  # dated on other days: the one dated later is kept
    assert contradictions == set(OTHER_COUNT)
    plans = [f["plan"] for f in found if f["kind"] == "contradiction"]
    assert all(p["steps"][0]["tool"] == "supersede_observation" for p in plans)
