"""An entity note whose memory sections a person headed in another letter case (`## observations`,
`## RELATIONS`) holds its observations and relations for the memory tools (U8 s75 #9: open_nodes
listed none, and the next add_observations appended a second `## Observations` section after the
person's). The headings are read in any case and written back as the person wrote them. Through
the dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

EVE = (
    "---\nname: Eve\nentityType: person\n---\n# Eve\n\n## observations\n- Likes tea ^m-1\n\n"
    "## RELATIONS\n- knows [[Memory/Ann]]\n\n## Notes\nmy own text\n"
)
ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n\n## Relations\n"


async def test_memory_sections_headed_in_another_case_are_read_and_kept(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Eve.md": EVE, "Memory/Ann.md": ANN, "Welcome.md": "# W\n"})) as vg:
        await vg.indexed()
        opened = await vg.ok("open_nodes", names=["Eve"])
        assert [o["text"] for o in opened["entities"][0]["observations"]] == ["Likes tea"], opened
        assert {"from": "Eve", "to": "Ann", "relationType": "knows"} in opened["relations"], opened
        found = await vg.ok("search_memory", query="tea")
        assert [i["text"] for i in found["items"]] == ["Likes tea"], found
        await vg.ok("add_observations", observations=[{"entityName": "Eve", "contents": ["Plays chess"]}])
        await vg.ok("create_relations", relations=[{"from": "Eve", "to": "Welcome", "relationType": "wrote"}])
        text = vg.read("Memory/Eve.md")
        assert text.lower().count("## observations") == 1 and text.lower().count("## relations") == 1, text
        assert "## observations\n- Likes tea ^m-1\n- Plays chess" in text and "## RELATIONS\n- knows" in text, text
        assert text.endswith("## Notes\nmy own text\n"), text
        again = await vg.ok("open_nodes", names=["Eve"])
        assert [o["text"] for o in again["entities"][0]["observations"]] == ["Likes tea", "Plays chess"]
