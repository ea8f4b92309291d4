"""search_memory of a question that names an entity and says nothing else that matches (M4 s71):
"Caro" (the alias a person gave Caroline in Obsidian) or "tell me about Caroline" found nothing,
because the name is taken out of the words searched and no other word was left to match. Such a
question now gives that entity's observations; a question naming nobody still finds nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

CAROLINE = """---
name: "Caroline"
entityType: "person"
aliases: ["Caro"]
---
# Caroline

## Observations
- Works at the LGBTQ center ^c1
- Moved from Sweden four years ago ^c2
- Has a dog named Oscar ^c3
"""
MELANIE = "---\nname: Melanie\n---\n# Melanie\n\n## Observations\n- Paints sunrises with Caroline ^m1\n"
VAULT = {"Memory/Caroline.md": CAROLINE, "Memory/Melanie.md": MELANIE}
FACTS = ["Works at the LGBTQ center", "Moved from Sweden four years ago", "Has a dog named Oscar"]


@pytest.mark.covers("search_memory", "success")
async def test_a_question_that_only_names_an_entity_gives_its_observations(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:  # embeddings off: words and names only
        for query in ("Caro", "Tell me everything about Caro", "What do I know about Caroline?"):
            out = await vg.ok("search_memory", query=query, limit=5)
            assert [i["text"] for i in out["items"]] == FACTS, query
            assert {i["entity"] for i in out["items"]} == {"Caroline"}
        assert (await vg.ok("search_memory", query="quantum chromodynamics", limit=5))["items"] == []
        dog = await vg.ok("search_memory", query="Caro's dog", limit=5)
        assert dog["items"][0]["text"] == "Has a dog named Oscar"  # words that match: ranked as before
