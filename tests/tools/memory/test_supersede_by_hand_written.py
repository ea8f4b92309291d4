"""supersede_observation by an observation a person wrote without a block id (`- Likes coffee`)
gives that line a block id and points the older one at it. Before, `Observation.render` returned a
line read as it was, so the newer one got no id: the older line was written
`- Likes tea [superseded_by:: ^] ^m-…` (a pointer to nothing), the call answered `superseded_by: ""`
and open_nodes read the older fact as current (history lost). Through the dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

HEAD = "---\nname: Eve\nentityType: person\n---\n# Eve\n\n## Observations\n"


@pytest.mark.parametrize("marker", ["- ", "* ", "2. "])
async def test_a_hand_written_newer_observation_gets_the_block_id_pointed_at(
    make_vault: Callable[..., Path], marker: str
) -> None:
    note = HEAD + f"- Likes tea\n{marker}Likes coffee (since May)\n"
    async with started(make_vault({"Memory/Eve.md": note})) as vg:
        out = await vg.ok(
            "supersede_observation", entityName="Eve", observation="Likes tea", superseded_by="Likes coffee (since May)"
        )
        assert out["superseded_by"], out
        lines = vg.read("Memory/Eve.md").split("\n")
        newer = next(line for line in lines if "coffee" in line)
        assert newer == f"{marker}Likes coffee (since May) ^{out['superseded_by']}", newer
        older = next(line for line in lines if "tea" in line)
        assert f"[superseded_by:: ^{out['superseded_by']}]" in older, older
        opened = await vg.ok("open_nodes", names=["Eve"])
        by_text = {o["text"]: o for o in opened["entities"][0]["observations"]}
        assert by_text["Likes tea"]["superseded_by"] == out["superseded_by"], by_text
        assert by_text["Likes coffee (since May)"]["block_id"] == out["superseded_by"], by_text
