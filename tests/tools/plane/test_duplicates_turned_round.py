"""Two observations with the same words turned round a word that says which way ("email over
phone" / "phone over email") say opposite things: the duplicates job never files them as near
duplicates, whose plan would delete the newer one."""

from __future__ import annotations

from typing import Any

from tests.conftest import Harness

PAIRS = [
    ("Prefers email over phone", "Prefers phone over email"),
    ("Likes dogs more than cats", "Likes cats more than dogs"),
]
REORDERED = ("Prefers tea over coffee in the morning", "In the morning prefers tea over coffee")


async def test_a_statement_turned_round_is_no_near_duplicate_and_a_reordered_one_still_is(vg: Harness) -> None:
    for i, (old, new) in enumerate([*PAIRS, REORDERED]):
        await vg.ok("create_entities", entities=[{"name": f"P{i}", "entityType": "person", "observations": []}])
        for text, day in ((old, "2020-01-01"), (new, "2024-01-01")):
            batch: list[dict[str, Any]] = [{"entityName": f"P{i}", "contents": [text], "date": day}]
            await vg.ok("add_observations", observations=batch)
    await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
    found = (await vg.ok("list_findings", limit=100))["items"]
    pairs = {(f["detail"]["kept"], f["detail"]["duplicate"]) for f in found if f["kind"] == "near_duplicate"}
    assert pairs == {REORDERED[::-1]}  # dated on other days: the one dated later is kept
