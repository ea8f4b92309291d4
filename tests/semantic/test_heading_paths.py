"""search_semantic, search_hybrid and find_similar items carry the best chunk's heading path, as
rag_search's do: two sections of one name under different headings are told apart (T5 #10)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.semantic.helpers import VAULT, semantic

GARDEN = (
    "# Garden\n\n## Vegetables\n\n### Care\n\nTomatoes need full sun, deep watering and stakes.\n\n"
    "## Flowers\n\n### Care\n\nRoses need pruning in early spring and mulch.\n"
)


async def test_semantic_and_hybrid_items_give_the_best_chunks_heading_path(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault({**VAULT, "Garden.md": GARDEN})) as h:
        for tool in ("search_semantic", "search_hybrid"):
            top = (await h.ok(tool, query="how do I care for tomatoes", limit=1))["items"][0]
            assert top["path"] == "Garden.md" and top["heading"] == "Care", (tool, top)
            assert top["heading_path"] == ["Garden", "Vegetables", "Care"], (tool, top)
            top = (await h.ok(tool, query="pruning roses in spring", limit=1))["items"][0]
            assert top["heading_path"] == ["Garden", "Flowers", "Care"], (tool, top)
        out = await h.ok("search_semantic", query="bread dough rising overnight", limit=1)
        assert out["items"][0]["heading_path"] == ["Sourdough", "Loaf"]
        out = await h.ok("search_semantic", query="filing income declarations", limit=1)
        assert out["items"][0]["heading_path"] == ["Taxes"]  # a chunk under the note's title
        similar = await h.ok("find_similar", path="Baking/Sourdough.md", limit=5)
        assert all(isinstance(i["heading_path"], list) for i in similar["items"])
        garden = next(i for i in similar["items"] if i["path"] == "Garden.md")
        assert garden["heading_path"][:2] in (["Garden", "Vegetables"], ["Garden", "Flowers"])


async def test_a_secret_in_a_heading_is_redacted_in_the_heading_path(make_vault: Callable[..., Path]) -> None:
    note = "# Server\n\n## Key sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c\n\nRotate the access key every quarter.\n"
    async with semantic(make_vault({**VAULT, "Ops/Server.md": note})) as h:
        top = (await h.ok("search_semantic", query="rotating access keys", limit=1))["items"][0]
        assert top["path"] == "Ops/Server.md", top
        assert top["heading_path"][0] == "Server" and len(top["heading_path"]) == 2
        assert "4f9a8b7c6d5e" not in str(top["heading_path"]) and "REDACTED" in top["heading_path"][1]


async def test_context_for_query_passages_give_their_heading_path(make_vault: Callable[..., Path]) -> None:
    """A passage's heading path is that of the chunk it starts with."""
    async with semantic(make_vault({**VAULT, "Garden.md": GARDEN})) as h:
        for query, trail in (
            ("pruning roses in spring", ["Garden", "Flowers", "Care"]),
            ("staking tomatoes in full sun", ["Garden", "Vegetables", "Care"]),
        ):
            out = await h.ok("context_for_query", query=query, max_tokens=400, max_per_note=1)
            garden = next(p for p in out["passages"] if p["path"] == "Garden.md")
            assert garden["heading"] == "Care" and garden["heading_path"] == trail, garden
        out = await h.ok("context_for_query", query="pruning roses in spring", max_tokens=400)
        merged = next(p for p in out["passages"] if p["path"] == "Garden.md")
        assert merged["chunks"][0] == 0 and merged["heading_path"] == ["Garden", "Vegetables", "Care"], merged
