"""An entity note whose memory sections a person headed with a closing sequence (`## Observations ##`,
a valid ATX heading whose text is "Observations", as Obsidian shows it) or extra spaces
(`##   Relations`) holds its observations and relations (R6 s76, probe test_p_sections: open_nodes
listed none of them, and add_observations / create_relations appended a second section of each).
Through the dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

EVE = (
    "---\nname: Eve\nentityType: person\n---\n# Eve\n\n## Observations ##\n- Likes tea ^m-1\n\n"
    "##   Relations   #\n- knows [[Memory/Ann]]\n\n## Notes\nmy own text\n"
)
ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n"


async def test_memory_sections_with_closing_hashes_are_read_and_kept(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Eve.md": EVE, "Memory/Ann.md": ANN, "Welcome.md": "# W\n"})) as vg:
        await vg.indexed()
        opened = await vg.ok("open_nodes", names=["Eve"])
        assert [o["text"] for o in opened["entities"][0]["observations"]] == ["Likes tea"], opened
        assert {"from": "Eve", "to": "Ann", "relationType": "knows"} in opened["relations"], opened
        await vg.ok("add_observations", observations=[{"entityName": "Eve", "contents": ["Plays chess"]}])
        await vg.ok("create_relations", relations=[{"from": "Eve", "to": "Welcome", "relationType": "wrote"}])
        text = vg.read("Memory/Eve.md")
        assert text.count("Observations") == 1 and text.count("Relations") == 1, text
        assert "## Observations ##\n- Likes tea ^m-1\n- Plays chess" in text, text
        assert "##   Relations   #\n- knows [[Memory/Ann]]\n- wrote [[Welcome]]\n\n## Notes\nmy own text\n" in text, (
            text
        )
        again = await vg.ok("open_nodes", names=["Eve"])
        assert [o["text"] for o in again["entities"][0]["observations"]] == ["Likes tea", "Plays chess"]
