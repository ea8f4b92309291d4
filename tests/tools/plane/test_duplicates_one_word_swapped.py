"""Two observations alike but for one word each ("Drinks tea every morning" / "Drinks coffee every
morning") state two facts: the duplicates job filed them as near duplicates and planned to delete
the newer one (with `auto_apply` near_duplicate, unasked). Found by U8 (session 75) on a copy of
kepano's vault with the built-in embeddings: a cosine of 0.80 and a few shared words held for
short statements that swap only their object. Words only, the first pair shared 60 % of its words
and was filed too. A line that says all the other says and more is still a near duplicate."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness
from tests.semantic.helpers import semantic

SWAPPED = [
    ("Drinks tea every morning", "Drinks coffee every morning"),
    ("Favorite color is green", "Favorite color is blue"),
    ("CEO of Obsidian", "Designer of Obsidian"),
    ("Plays the piano", "Plays the guitar"),
]
DETAIL = ("Works at the bakery", "Works at the bakery on weekends")


async def _near_pairs(vg: Harness) -> set[tuple[str, str]]:
    for i, (old, new) in enumerate([*SWAPPED, DETAIL]):
        await vg.ok("create_entities", entities=[{"name": f"P{i}", "entityType": "person", "observations": []}])
        for text, day in ((old, "2020-01-01"), (new, "2024-01-01")):
            batch: list[dict[str, Any]] = [{"entityName": f"P{i}", "contents": [text], "date": day}]
            await vg.ok("add_observations", observations=batch)
    await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
    found = (await vg.ok("list_findings", limit=100))["items"]
    return {(f["detail"]["kept"], f["detail"]["duplicate"]) for f in found if f["kind"] == "near_duplicate"}


async def test_one_word_swapped_is_no_near_duplicate_by_words(vg: Harness) -> None:
    assert await _near_pairs(vg) == {DETAIL[::-1]}


async def test_one_word_swapped_is_no_near_duplicate_by_meaning(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault({"Home.md": "# Home\n"})) as h:
        assert await _near_pairs(h) == {DETAIL[::-1]}
