"""Over real HTTP with the SDK client: a search over a vault holding a note longer than
`[limits] max_indexed_note_chars` says which notes were searched only up to the limit
(`capped`), so an empty answer for a word in such a note's tail is not taken for "no note holds
it" (review R4 s63 F2). Bounded waits, no timings asserted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

WITHIN = 60.0
LIMIT = 4096
BIG = "# Big\n\nearlyword\n" + "".join(f"- [ ] task {i} with plain words\n" for i in range(400)) + "lateword\n"


async def test_a_search_names_the_notes_it_read_only_in_part_over_http(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n\nalpha\n"})
    async with e2e(root, limits={"max_indexed_note_chars": LIMIT}) as (url, harness), Client(url) as client:
        await harness.indexed()
        assert (await ok(client, "search_text", {"query": "lateword"})).get("capped") is None
        (root / "Big.md").write_text(BIG, encoding="utf-8")  # saved by another program
        for _ in range(int(WITHIN / 0.05)):
            if (await ok(client, "search_text", {"query": "earlyword"}))["items"]:
                break
            await asyncio.sleep(0.05)
        expected = {"count": 1, "paths": ["Big.md"], "indexed_chars": LIMIT}
        text = await ok(client, "search_text", {"query": "lateword"})
        assert (text["items"], text["partial"], text["capped"]) == ([], False, expected)
        regex = await ok(client, "search_regex", {"pattern": "late\\w+"})
        assert (regex["items"], regex["capped"]) == ([], expected)
        assert (await ok(client, "search_text", {"query": "alpha"}))["capped"] == expected  # whatever was found
        # search_vault (every text mode) and search_notes search the same cut text (review R2 s64 F8).
        for args in ({"query": "lateword"}, {"query": "lateword", "mode": "hybrid", "tags": ["x"]}):
            routed = await ok(client, "search_vault", args)
            assert (routed["items"], routed["partial"], routed["capped"]) == ([], False, expected), args
        for mode in ("full_text", "hybrid"):
            notes = await ok(client, "search_notes", {"query": "lateword", "mode": mode})
            assert (notes["items"], notes["total"], notes["capped"]) == ([], 0, expected), mode
