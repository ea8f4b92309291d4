"""A memory entity's note is no health or money topic for holding the memory format's own
`## Relations` section. On a served vault, every entity note `create_entities` wrote came back
`sensitive: true` from search_text, find_similar and search_hybrid, and a context_for_query
passage about "Founding editor of Wired" said `sensitive_detected: true`: the default
`[search] sensitive_tags` held `relations`, and a heading named like a sensitive tag flags its
note, so the section every entity note has made each one a topic. The documented topics are
health and money (docs/configuration.md); `relations` is neither and is no default any more. A
`## Finance` section still flags its note."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.semantic.helpers import VAULT, semantic, settled

NOTES = {
    **VAULT,
    "Home/Budget.md": "# Budget\n\nThe magazine subscriptions for the year.\n\n## Finance\n\nThe yearly total.\n",
}


async def test_an_entity_note_is_not_flagged_for_its_relations_section(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as h:
        entities = [
            {"name": "Kevin Kelly", "entityType": "person", "observations": ["Founding editor of Wired magazine"]},
            {"name": "Wired", "entityType": "magazine", "observations": ["A technology magazine"]},
        ]
        await h.ok("create_entities", entities=entities)
        await h.ok("create_relations", relations=[{"from": "Kevin Kelly", "to": "Wired", "relationType": "edited"}])
        assert "## Relations\n- edited [[Memory/Wired]]" in (h.root / "Memory/Kevin Kelly.md").read_text()
        await settled(h)
        for tool in ("search_text", "search_hybrid", "search_notes"):
            items = (await h.ok(tool, query="magazine", limit=20))["items"]
            flags = {i["path"]: i["sensitive"] for i in items}
            assert flags.get("Memory/Kevin Kelly.md") is False, (tool, flags)
            assert flags.get("Home/Budget.md") is True, (tool, flags)
        passages = await h.ok("context_for_query", query="who edited Wired magazine", max_tokens=400)
        kelly = [p for p in passages["passages"] if p["path"] == "Memory/Kevin Kelly.md"]
        assert kelly and not any(p["sensitive"] for p in kelly), passages["passages"]
        rag = await h.ok("rag_search", query="who edited Wired magazine", max_results=10)
        assert not [r for r in rag["results"] if r["source_file"].startswith("Memory/") and r["sensitive"]]
