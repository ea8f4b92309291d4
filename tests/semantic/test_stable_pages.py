"""The pages of a ranking by similarity keep their place while notes change between them
(issue 15: a cursor never repeats or skips an unchanged note): rag_search and search_semantic
resume after the last item shown, not at an offset into the new ranking."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.semantic.helpers import semantic, settled

TOPICS = [
    "feeding a kitten wet food",
    "kitten vaccinations at the vet",
    "litter box training for kittens",
    "toys that kittens love",
    "grooming a young cat",
    "kitten sleep schedule",
    "choosing a kitten collar",
    "kitten teething",
    "introducing a kitten to dogs",
]
NOTES = {f"Cats/K{i}.md": f"# K{i}\n\nAbout {t}.\n" for i, t in enumerate(TOPICS)}
QUERY = "how do I care for a kitten"


async def _pages(h: Any, tool: str, key: str, args: dict[str, Any], between: Any = None) -> list[list[str]]:
    out = await h.ok(tool, **args)
    seen = [[i["path"] for i in out[key]]]
    if between is not None:
        await between(seen[0])
    for _ in range(20):
        if not out["next_cursor"]:
            return seen
        out = await h.ok(tool, **args, cursor=out["next_cursor"])
        seen.append([i["path"] for i in out[key]])
    raise AssertionError("no last page")


@pytest.mark.parametrize(
    ("tool", "key", "args"),
    [("rag_search", "results", {"max_results": 3}), ("search_semantic", "items", {"limit": 3})],
)
async def test_an_edit_between_pages_neither_skips_nor_repeats_an_unchanged_note(
    make_vault: Callable[..., Path], tool: str, key: str, args: dict[str, Any]
) -> None:
    async with semantic(make_vault(NOTES)) as h:
        before = [p for page in await _pages(h, tool, key, {"query": QUERY, **args}) for p in page]
        assert sorted(before) == sorted(NOTES)

        async def rewrite(first: list[str]) -> None:
            # page 1's best note is rewritten about something else: it falls to the end
            note = await h.ok("read_note", path=first[0])
            text = "# Moved\n\nTax returns and spreadsheets.\n"
            await h.ok("write_note", path=first[0], content=text, mode="overwrite", expected_etag=note["etag"])
            await h.settled()
            await settled(h)

        pages = await _pages(h, tool, key, {"query": QUERY, **args}, rewrite)
        edited = pages[0][0]
        after = [p for page in pages[1:] for p in page if p != edited]
        unchanged = [p for p in before if p not in pages[0]]
        assert after == unchanged  # each unchanged note once, in its order
