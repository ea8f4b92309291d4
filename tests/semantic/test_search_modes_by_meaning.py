"""The semantic and hybrid modes of search_notes and search_vault take the date filters of
search_semantic (`modified_after` / `modified_before`) and flag a note holding a secret
(`sensitive`), as search_semantic's items do (T5 #9)."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.semantic.helpers import VAULT, semantic

KEY = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
NOTES = {
    **VAULT,
    "Pets/Feeding.md": "# Feeding\n\nKittens eat wet food four times a day; adult cats twice.\n",
    "Pets/Vet.md": f"# Vet\n\nThe kitten's food plan is in the clinic portal, login token {KEY}.\n",
}
OLD = dt.datetime(2020, 1, 1, tzinfo=dt.UTC).timestamp()
MODES: list[tuple[str, dict[str, Any]]] = [
    ("search_notes", {"mode": "semantic"}),
    ("search_notes", {"mode": "hybrid"}),
    ("search_vault", {"mode": "semantic"}),
    ("search_vault", {"mode": "hybrid"}),
]


async def test_semantic_and_hybrid_modes_take_the_date_filters(make_vault: Callable[..., Path]) -> None:
    root = make_vault(NOTES)
    os.utime(root / "Pets/Feeding.md", (OLD, OLD))
    async with semantic(root) as h:
        for tool, mode in MODES:
            every = await h.ok(tool, query="how often do kittens eat", limit=3, **mode)
            assert every["items"][0]["path"] == "Pets/Feeding.md", (tool, mode, every["items"])
            newer = await h.ok(tool, query="how often do kittens eat", modified_after="2021-01-01", **mode)
            assert newer["items"] and "Pets/Feeding.md" not in [i["path"] for i in newer["items"]], (tool, mode)
            older = await h.ok(tool, query="how often do kittens eat", modified_before="2021-01-01", **mode)
            assert [i["path"] for i in older["items"]] == ["Pets/Feeding.md"], (tool, mode, older["items"])
            await h.err(tool, "validation_error", query="kittens", modified_after="last week", **mode)


async def test_semantic_and_hybrid_items_flag_a_note_holding_a_secret(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as h:
        for tool, mode in MODES:
            out = await h.ok(tool, query="the kitten's food plan at the clinic", limit=10, **mode)
            flagged = {i["path"]: i["sensitive"] for i in out["items"]}
            assert flagged.get("Pets/Vet.md") is True, (tool, mode, out["items"])
            assert flagged.get("Pets/Feeding.md") is False, (tool, mode, flagged)
            assert KEY not in str(out), (tool, mode)
