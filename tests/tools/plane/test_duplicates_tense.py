"""A fact stated as history and the same fact stated now ("Worked at Acme" / "Works at Acme") are two
facts: the duplicates job filed them as near duplicates (all their stemmed words alike) and planned
to delete one — undated, the later: "Works at Acme" written after "Worked at Acme" (back at Acme)
was deleted and the note read as if the person had left; "Worked at Acme" written after "Works at
Acme" (left) was deleted and the note still said they work there. B2 (session 77) found it after
e7accb6d made the contradictions job read the past as history; the guard now shares its rule. Two
lines in the same tense are still near duplicates."""

from __future__ import annotations

from tests.conftest import Harness

TENSES = [
    ("Worked at Acme", "Works at Acme"),
    ("Lives in Paris", "Lived in Paris"),
    ("Is based in Oslo", "Was based in Oslo"),
]
SAME = ("Works at the bakery", "Works at the bakery on weekends")


async def test_history_and_the_present_are_no_near_duplicates(vg: Harness) -> None:
    for i, (old, new) in enumerate([*TENSES, SAME]):
        await vg.ok("create_entities", entities=[{"name": f"T{i}", "entityType": "person", "observations": []}])
        for text in (old, new):  # undated: the later one would be the one deleted
            await vg.ok("add_observations", observations=[{"entityName": f"T{i}", "contents": [text]}])
    await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
    found = (await vg.ok("list_findings", limit=100))["items"]
    pairs = {(f["detail"]["kept"], f["detail"]["duplicate"]) for f in found if f["kind"].endswith("duplicate")}
    assert pairs == {SAME[::-1]}
