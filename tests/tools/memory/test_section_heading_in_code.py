"""A `## Observations` (or `## observations`) line inside a fenced code block of an entity note is
code, not the memory section: open_nodes listed the code block's lines as observations, and
add_observations moved the note's real `## Observations` heading inside the fence (R6's s76
review of dc4c86e0, which read the headings in any case; an exact-case heading in a fence did the
same before). Through the whole dispatch chain; the code block stays as written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

HEAD = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n"
CODE = "```\n{heading}\n- fake\n```\n"


@pytest.mark.parametrize("heading", ["## observations", "## Observations", "## Relations"])
async def test_a_section_heading_in_a_code_block_is_code(make_vault: Callable[..., Path], heading: str) -> None:
    code = CODE.format(heading=heading)
    note = HEAD + code + "\n## Observations\n- Likes tea ^m-1\n\n## Relations\n"
    async with started(make_vault({"Memory/Ann.md": note})) as vg:
        await vg.indexed()
        [ann] = (await vg.ok("open_nodes", names=["Ann"]))["entities"]
        assert [o["text"] for o in ann["observations"]] == ["Likes tea"], ann
        await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["Plays chess"]}])
        text = vg.read("Memory/Ann.md")
        assert code in text, text  # the block as written, nothing moved into it
        assert text.index("## Observations\n- Likes tea") > text.index(code), text
        [ann] = (await vg.ok("open_nodes", names=["Ann"]))["entities"]
        assert [o["text"] for o in ann["observations"]] == ["Likes tea", "Plays chess"], ann
