"""search_memory takes a person's first name for them, as their full name: "Where does Steph
live?" is about Steph Ango (her observations first), not a word to match, so "Lives next door to
Steph" in another person's note no longer wins over "Lives in Seattle". Only a person's, only when
no other entity's name starts with it, only capitalised and not as a question's first word (bar
"Steph's"): "Sam" names neither of two Sams; "New" never names New York; "Will it rain?" no Will."""

from __future__ import annotations

from tests.conftest import Harness

PEOPLE = [
    {"name": "Steph Ango", "entityType": "person", "observations": ["Lives in Seattle", "Works at Obsidian"]},
    {"name": "Priya Raman", "entityType": "person", "observations": ["Lives next door to Steph", "Lives in Lisbon"]},
]


async def test_a_first_name_is_the_person(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{**p, "observations": []} for p in PEOPLE])
    for n, (name, text) in enumerate((p["name"], t) for p in PEOPLE for t in p["observations"]):
        # on days of their own: not each other's recorded neighbours (`service.memory.order`)
        batch = [{"entityName": name, "contents": [text], "date": f"2024-01-0{n + 1}"}]
        await vg.ok("add_observations", observations=batch)
    for query in ("Where does Steph live?", "Steph's home city?"):
        hits = (await vg.ok("search_memory", query=query, limit=3))["items"]
        assert (hits[0]["entity"], hits[0]["text"]) == ("Steph Ango", "Lives in Seattle"), (query, hits)
