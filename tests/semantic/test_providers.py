"""Each embedding provider against a local stand-in that follows the provider's published API
shapes: request bodies, auth, batching, ordering, retry with backoff, and outages."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from service.embeddings.factory import build_embedder
from service.embeddings.remote import RemoteEmbedder
from service.errors import EmbeddingUnavailable
from service.settings import EmbeddingSettings
from tests.semantic.helpers import VAULT, settled
from tests.semantic.standin import KEY, free_url, stand_in, vector

CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("ollama", "/api/embed", {}),
    ("openai", "/v1/embeddings", {"api_key_env": "VG_TEST_KEY"}),
    ("voyage", "/v1/embeddings", {"api_key_env": "VG_TEST_KEY"}),
    ("cohere", "/v2/embed", {"api_key_env": "VG_TEST_KEY"}),
]


def embedder(provider: str, url: str, **extra: Any) -> RemoteEmbedder:
    made = build_embedder(EmbeddingSettings(provider=provider, base_url=url, batch_size=2, **extra))  # type: ignore[arg-type]
    assert isinstance(made, RemoteEmbedder)
    made.backoff_base = 0.0
    return made


@pytest.mark.parametrize(("provider", "path", "extra"), CASES)
async def test_provider_request_and_response_shapes(
    provider: str, path: str, extra: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VG_TEST_KEY", KEY)
    async with stand_in() as server:
        emb = embedder(provider, server.url, **extra)
        texts = ["cats and kittens", "tax returns", "bread dough"]
        rows = await emb.embed_documents(texts)
        query = await emb.embed_query("kittens")
        await emb.aclose()
    assert rows.shape == (3, 64) and query.shape == (1, 64)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0)
    expected = np.asarray([vector(t) for t in texts], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(rows, expected, atol=1e-5)  # order kept even when the server lists data reversed
    assert [p for p, _, _ in server.requests] == [path] * 3  # batches of 2, then the query
    bodies = [b for _, b, _ in server.requests]
    assert all(b["model"] == emb.model for b in bodies)
    if provider == "ollama":
        assert bodies[0]["input"] == ["search_document: cats and kittens", "search_document: tax returns"]
        assert bodies[2]["input"] == ["search_query: kittens"]
    elif provider == "openai":
        assert bodies[0]["input"] == texts[:2] and bodies[0]["encoding_format"] == "float"
    elif provider == "voyage":
        assert [b["input_type"] for b in bodies] == ["document", "document", "query"]
    else:
        assert [b["input_type"] for b in bodies] == ["search_document", "search_document", "search_query"]
        assert bodies[0]["texts"] == texts[:2] and bodies[0]["embedding_types"] == ["float"]
    if provider != "ollama":
        assert all(h["authorization"] == f"Bearer {KEY}" for _, _, h in server.requests)


async def test_retry_with_backoff_then_success() -> None:
    async with stand_in() as server:
        emb = embedder("ollama", server.url, retries=2)
        server.fail_next = 2
        rows = await emb.embed_documents(["one"])
        await emb.aclose()
    assert rows.shape == (1, 64) and len(server.requests) == 3


async def test_outages_raise_embedding_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    emb = embedder("ollama", free_url(), retries=1)
    with pytest.raises(EmbeddingUnavailable, match="unavailable"):
        await emb.embed_query("x")
    await emb.aclose()
    async with stand_in() as server:
        emb = embedder("openai", server.url, retries=1, api_key_env="VG_TEST_KEY")
        monkeypatch.setenv("VG_TEST_KEY", "wrong")
        with pytest.raises(EmbeddingUnavailable, match="HTTP 401") as refused:
            await emb.embed_query("x")
        assert refused.value.details["status"] == 401 and len(server.requests) == 1  # not retried
        monkeypatch.delenv("VG_TEST_KEY")
        with pytest.raises(EmbeddingUnavailable, match="VG_TEST_KEY"):
            await emb.embed_query("x")
        await emb.aclose()
        server.fail_next = 10
        emb = embedder("cohere", server.url, retries=2, api_key_env="VG_TEST_KEY")
        monkeypatch.setenv("VG_TEST_KEY", KEY)
        with pytest.raises(EmbeddingUnavailable, match="503"):
            await emb.embed_documents(["x"])
        await emb.aclose()


async def test_server_with_a_provider_and_its_outage(make_vault: Callable[..., Path]) -> None:
    from tests.conftest import started

    async with stand_in() as server:
        cfg = {"provider": "ollama", "base_url": server.url, "debounce_ms": 0, "retries": 0}
        async with started(make_vault(VAULT), embeddings=cfg) as h:
            await settled(h)
            for job in h.app.semantic.jobs.values():
                assert job.state == "idle", job.error
            out = await h.ok("search_semantic", query="kitten vaccinations", limit=1)
            assert out["items"][0]["path"] == "Pets/Cats.md"
            assert out["model"] == "ollama:nomic-embed-text"
            health = await h.ok("server_health")
            assert health["embedding_backend"] == server.url
            server.fail_next = 1000  # the provider goes down
            error = await h.err("search_semantic", "embedding_unavailable", query="kitten")
            assert error["retryable"] is True
            text = await h.ok("search_text", query="kitten")
            assert {i["path"] for i in text["items"]} == {"Pets/Cats.md", "Private/Diary.md"}
            await h.ok("append_note", path="Pets/Cats.md", content="\nDogs are different.\n")
            job = next(iter(h.app.semantic.jobs.values()))
            await job.wait_settled()
            status = await h.ok("index_status")
            assert status["embeddings"]["state"] == "failed" and "unavailable" in status["embeddings"]["error"]
            assert status["embeddings"]["backlog"] >= 1


async def test_model_change_answers_from_the_old_vectors_until_the_new_are_complete(
    make_vault: Callable[..., Path],
) -> None:
    from tests.conftest import started

    root = make_vault(VAULT)
    async with started(root, embeddings={"provider": "builtin", "debounce_ms": 0}) as h:
        await settled(h)
    async with stand_in() as server:
        server.fail_next = 10_000  # the new provider is down at first
        cfg = {"provider": "ollama", "base_url": server.url, "debounce_ms": 0, "retries": 0}
        async with started(root, embeddings=cfg) as h:
            await settled(h)
            job = next(iter(h.app.semantic.jobs.values()))
            assert job.state == "failed"
            out = await h.ok("search_semantic", query="how do I make bread with a natural leaven", limit=1)
            assert out["stale"] is True and out["model"] == "builtin:all-MiniLM-L6-v2-int8-fused"
            assert out["items"][0]["path"] == "Baking/Sourdough.md"
            server.fail_next = 0  # it comes back; the next pass embeds everything for it
            job.kick()
            await job.wait_settled()
            assert job.state == "idle", job.error
            out = await h.ok("search_semantic", query="kitten vaccinations", limit=1)
            assert out["stale"] is False and out["model"] == "ollama:nomic-embed-text"
            assert out["items"][0]["path"] == "Pets/Cats.md"
            left = await h.app.db.fetchone("SELECT COUNT(*) FROM embeddings WHERE model LIKE 'builtin:%'")
            assert left[0] == 0  # the old model's vectors are dropped once no vault needs them
