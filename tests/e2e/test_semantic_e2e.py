"""Semantic search end to end: a real server with the builtin model, the SDK client over
Streamable HTTP; a question that shares no word with the note finds it, and a note the caller
may not read never comes back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok as _ok
from tests.semantic.helpers import VAULT, model_ready, settled


async def test_search_by_meaning_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    embeddings = {"provider": "builtin", "debounce_ms": 0}
    acl = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
    await model_ready()
    async with e2e(make_vault(VAULT), embeddings=embeddings, acl=acl) as (url, harness):
        await settled(harness)
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await _ok(client, "search_semantic", {"query": "how do I make bread with a natural leaven"})
            assert out["items"][0]["path"] == "Baking/Sourdough.md"
            assert "%23" in out["items"][0]["obsidian_url"]
            assert all(i["path"] != "Private/Diary.md" for i in out["items"])
            hybrid = await _ok(client, "search_hybrid", {"query": "money owed to the state each year", "limit": 3})
            assert hybrid["items"][0]["path"] == "Finance/Taxes.md"
            similar = await _ok(client, "find_similar", {"path": "Pets/Cats.md"})
            assert "Private/Diary.md" not in [i["path"] for i in similar["items"]]
            vault = await _ok(client, "search_vault", {"mode": "semantic", "query": "holiday abroad in asia"})
            assert vault["items"][0]["path"] == "Travel/Japan.md"
            health = await _ok(client, "server_health", {})
            assert health["embedding_model"] == "builtin:all-MiniLM-L6-v2-int8-fused"


async def test_search_by_meaning_over_stdio_with_the_default_config(make_vault: Callable[..., Path], mode: str) -> None:
    import sys

    from mcp import StdioServerParameters

    root = make_vault(VAULT)  # a bare folder: the default configuration, builtin model on
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)])
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        # reindex(mode=embeddings) returns when every chunk has its vector: the job's own signal.
        done = await _ok(client, "reindex", {"mode": "embeddings"})
        assert done["job"]["status"] == "done" and done["job"]["total"] >= len(VAULT)
        out = await _ok(client, "search_semantic", {"query": "holiday abroad in asia", "limit": 1})
        assert out["items"][0]["path"] == "Travel/Japan.md"
