"""An entity note whose frontmatter does not parse (a YAML typo, an alias bomb) has no `name` to
read. open_nodes found it (by its file name) and showed its observations, but read_memory_graph
and search_memory left it out: they listed only notes with a name, so an agent recalling memory
never saw an entity a person made with one YAML typo (T1 s63 #6; docs/memory.md: "Reading it still
works"). Such a note is named by its `# title`, else by its file name read back (`AC~2FDC.md` is
`AC/DC`), in every read; its writes stay refused (invalid_frontmatter, byte for byte). Through
the dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, started

LEVELS = "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True))
TYPO = "---\nname: Typo\nentityType: person\nnotes: [unclosed\n---\n## Observations\n- collects kaleidoscopes\n"
BOMB = "---\na: &a [x, x, x, x, x, x, x, x, x]\n" + LEVELS + "---\n## Observations\n- plays kaleidoscopes live\n"
TITLED = "---\nname: [unclosed\n---\n# Zoé Martin\n\n## Observations\n- paints kaleidoscopes\n"
FINE = "---\nname: Fine\nentityType: person\n---\n## Observations\n- collects kaleidoscopes too\n"
VAULT = {
    "Memory/Typo.md": TYPO,
    "Memory/AC~2FDC.md": BOMB,
    "Memory/Zoe.md": TITLED,
    "Memory/Fine.md": FINE,
    "Memory/Plain.md": "---\nkind: scratch\n---\nnot an entity: no name, no title\n",
}
NAMES = {"Typo": "Memory/Typo.md", "AC/DC": "Memory/AC~2FDC.md", "Zoé Martin": "Memory/Zoe.md"}


async def test_an_entity_whose_frontmatter_does_not_parse_is_in_every_read(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        graph = await vg.ok("read_memory_graph")
        assert sorted(e["name"] for e in graph["entities"]) == sorted([*NAMES, "Fine"]), graph
        found = await vg.ok("search_memory", query="kaleidoscopes", limit=10)
        assert {i["entity"] for i in found["items"]} == {*NAMES, "Fine"}, found
        opened = await vg.ok("open_nodes", names=list(NAMES))
        assert opened["missing"] == [] and [e["name"] for e in opened["entities"]] == list(NAMES), opened
        for name, rel in NAMES.items():
            before = vg.read(rel)
            args = {"observations": [{"entityName": name, "contents": ["likes tea"]}]}
            error = await vg.err("add_observations", "validation_error", **args)
            assert error["details"]["reason"] == "invalid_frontmatter", (name, error)
            assert vg.read(rel) == before, name
        again = await vg.ok("read_memory_graph")  # the reads after a refused write: unchanged
        assert sorted(e["name"] for e in again["entities"]) == sorted(e["name"] for e in graph["entities"])


async def test_over_http_an_entity_whose_frontmatter_does_not_parse_is_listed_and_found(
    make_vault: Callable[..., Path],
) -> None:
    async with e2e(make_vault(VAULT)) as (url, _), Client(url) as client:
        graph = (await client.call_tool("read_memory_graph", {})).structured_content
        assert graph is not None and sorted(e["name"] for e in graph["entities"]) == sorted([*NAMES, "Fine"]), graph
        args = {"query": "kaleidoscopes", "limit": 10}
        found = (await client.call_tool("search_memory", args)).structured_content
        assert found is not None and {i["entity"] for i in found["items"]} == {*NAMES, "Fine"}, found
