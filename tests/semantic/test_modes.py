"""The semantic and hybrid modes of search_vault and search_notes; index_status, reindex and
server_health report the embedding engine."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.semantic.helpers import VAULT, semantic


async def test_search_vault_semantic_and_hybrid_modes(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as h:
        out = await h.ok("search_vault", mode="semantic", query="paying the government on earnings", limit=2)
        assert out["mode"] == "semantic"
        assert out["items"][0]["path"] == "Finance/Taxes.md"
        assert out["items"][0]["snippet"]
        out = await h.ok("search_vault", mode="hybrid", query="paying the government on earnings", limit=3)
        assert out["items"][0]["path"] == "Finance/Taxes.md"  # no shared word: found by the vector ranking
        assert out["items"][0]["snippet"]
        out = await h.ok("search_vault", mode="hybrid", query="kitten", tags=["animals"], limit=5)
        assert out["items"][0]["path"] == "Pets/Cats.md"
        await h.err("search_vault", "validation_error", mode="semantic", tags=["animals"])
        error = await h.err("search_vault", "mode_unavailable", mode="graph", query="kitten")
        assert "semantic" in error["details"]["available"] and "'semantic'" in error["hint"]


async def test_hybrid_and_semantic_modes_show_the_best_chunk_and_link_its_heading(
    make_vault: Callable[..., Path],
) -> None:
    """search_notes (semantic, hybrid) and search_vault (semantic, hybrid) items carry the best
    chunk as snippet and an obsidian_url at its heading, as search_hybrid's do."""
    query = "how long should the bread dough rise"
    async with semantic(make_vault(VAULT)) as h:
        ref = (await h.ok("search_hybrid", query=query, limit=1))["items"][0]
        assert ref["path"] == "Baking/Sourdough.md" and ref["obsidian_url"].endswith("%23Loaf")
        for tool, mode in (
            ("search_notes", "semantic"),
            ("search_notes", "hybrid"),
            ("search_vault", "hybrid"),
            ("search_vault", "semantic"),
        ):
            item = (await h.ok(tool, query=query, mode=mode, limit=1))["items"][0]
            assert item["path"] == "Baking/Sourdough.md", (tool, mode, item)
            assert item["obsidian_url"] == ref["obsidian_url"], (tool, mode, item)
            assert "let it rise overnight" in item["snippet"], (tool, mode, item)
        text = (await h.ok("search_vault", query="dough", mode="text", limit=1))["items"][0]
        assert "%23" not in text["obsidian_url"]  # a text mode links the note


async def test_search_notes_semantic_and_hybrid_modes(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as h:
        out = await h.ok("search_notes", mode="semantic", query="paying the government on earnings", limit=2)
        assert out["items"][0]["path"] == "Finance/Taxes.md"
        assert out["total"] == len(VAULT)
        out = await h.ok("search_notes", mode="hybrid", query="travelling to see blossoms", limit=2)
        assert out["items"][0]["path"] == "Travel/Japan.md"
        out = await h.ok("search_notes", mode="semantic", query="young cat", tags=["animals"])
        assert [i["path"] for i in out["items"]] == ["Pets/Cats.md"]
        out = await h.ok("search_notes", mode="semantic", query="young cat", path_scope=["Private"])
        assert [i["path"] for i in out["items"]] == ["Private/Diary.md"]
        await h.err("search_notes", "validation_error", mode="semantic", tags=["animals"])


async def test_index_status_and_health_report_embeddings(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as h:
        status = await h.ok("index_status")
        emb = status["embeddings"]
        assert emb["model"] == "builtin:all-MiniLM-L6-v2-int8-fused"
        assert emb["state"] == "idle" and emb["backlog"] == 0 and emb["error"] is None
        assert emb["chunks"] == emb["embedded"] >= len(VAULT)
        health = await h.ok("server_health")
        assert health["embedding_model"] == "builtin:all-MiniLM-L6-v2-int8-fused"
        assert health["embedding_backend"] == "onnxruntime-cpu dynamic-int8"
        assert health["vector_search"] == ("sqlite-vec" if h.app.db.backends.vec else "exact-scan")


async def test_reindex_embeddings_reports_progress(make_vault: Callable[..., Path]) -> None:
    seen: list[tuple[float, float | None]] = []
    async with semantic(make_vault(VAULT)) as h:
        from service.tools.context import ToolContext

        original = ToolContext.progress

        async def record(self: ToolContext, done: float, total: float | None = None, message: str | None = None) -> Any:
            seen.append((done, total))
            return await original(self, done, total, message)

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ToolContext, "progress", record)
            out = await h.ok("reindex", mode="embeddings")
        assert out["job"]["kind"] == "embeddings" and out["job"]["status"] == "done"
        assert out["job"]["progress"] == out["job"]["total"] >= len(VAULT)
        assert seen and seen[-1][0] == seen[-1][1]
        found = await h.ok("search_semantic", query="holiday abroad in asia", limit=1)
        assert found["items"][0]["path"] == "Travel/Japan.md"


async def test_reindex_embeddings_when_off(make_vault: Callable[..., Path]) -> None:
    from tests.conftest import started

    async with started(make_vault(VAULT)) as h:
        await h.indexed()
        await h.err("reindex", "mode_unavailable", mode="embeddings")
        assert (await h.ok("index_status"))["embeddings"] is None
