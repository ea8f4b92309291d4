"""The search tools' items over a real server and the SDK client (T5 #9, #10): search_hybrid's
items carry the best chunk's heading path; search_notes in semantic mode takes the date filters
and flags a note holding a secret, as search_vault's hybrid mode does."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok as _ok
from tests.semantic.helpers import VAULT, model_ready, settled

KEY = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
NOTES = {
    **VAULT,
    "Garden.md": "# Garden\n\n## Vegetables\n\n### Care\n\nTomatoes need full sun, deep watering and stakes.\n\n"
    "## Flowers\n\n### Care\n\nRoses need pruning in early spring and mulch.\n",
    "Pets/Feeding.md": "# Feeding\n\nKittens eat wet food four times a day; adult cats twice.\n",
    "Pets/Vet.md": f"# Vet\n\nThe kitten's food plan is in the clinic portal, login token {KEY}.\n",
}
OLD = dt.datetime(2020, 1, 1, tzinfo=dt.UTC).timestamp()


async def test_search_items_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(NOTES)
    os.utime(root / "Pets/Feeding.md", (OLD, OLD))
    await model_ready()
    async with e2e(root, embeddings={"provider": "builtin", "debounce_ms": 0}) as (url, harness):
        await settled(harness)
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await _ok(client, "search_hybrid", {"query": "pruning roses in spring", "limit": 1})
            assert out["items"][0]["heading_path"] == ["Garden", "Flowers", "Care"]
            out = await _ok(client, "search_hybrid", {"query": "how do I care for tomatoes", "limit": 1})
            assert out["items"][0]["heading_path"] == ["Garden", "Vegetables", "Care"]

            ask = {"query": "how often do kittens eat", "mode": "semantic", "limit": 3}
            assert (await _ok(client, "search_notes", ask))["items"][0]["path"] == "Pets/Feeding.md"
            older = await _ok(client, "search_notes", {**ask, "modified_before": "2021-01-01"})
            assert [i["path"] for i in older["items"]] == ["Pets/Feeding.md"] and older["total"] == 1
            newer = await _ok(client, "search_notes", {**ask, "modified_after": "2021-01-01T00:00:00Z"})
            assert "Pets/Feeding.md" not in [i["path"] for i in newer["items"]]

            ask = {"query": "the kitten's food plan at the clinic", "limit": 10}
            for tool, mode_arg in (("search_notes", "semantic"), ("search_vault", "hybrid")):
                found = await _ok(client, tool, {**ask, "mode": mode_arg})
                flagged = {i["path"]: i["sensitive"] for i in found["items"]}
                assert flagged["Pets/Vet.md"] is True and flagged["Pets/Feeding.md"] is False, (tool, flagged)
                assert KEY not in str(found)
