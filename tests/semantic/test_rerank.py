"""Rerank providers against local stand-ins of their APIs, the fallback to the unreranked order
(`degraded`) on every kind of failure, and context_for_query with a reranker configured."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.rerank.http import HttpReranker, build_reranker
from service.rerank.protocol import reorder
from service.settings import RerankSettings
from tests.semantic.helpers import VAULT, semantic
from tests.semantic.rerank_standin import KEY, rerank_stand_in
from tests.semantic.standin import free_url

DOCS = ["bread and butter", "a cat on a mat", "the cat sat on the mat with a hat", "taxes"]
QUERY = "cat mat hat"


def _reranker(provider: str, url: str, **extra: object) -> HttpReranker:
    env = {} if provider == "tei" else {"api_key_env": "TEST_RERANK_KEY"}
    return HttpReranker(RerankSettings.model_validate({"provider": provider, "base_url": url, **env, **extra}))


@pytest.mark.parametrize(
    ("provider", "path", "count_field"),
    [("cohere", "/v2/rerank", "top_n"), ("voyage", "/v1/rerank", "top_k"), ("jina", "/v1/rerank", "top_n")],
)
async def test_keyed_providers_send_their_shape_and_read_scores_by_index(
    provider: str, path: str, count_field: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_RERANK_KEY", KEY)
    async with rerank_stand_in() as api:
        r = _reranker(provider, api.url)
        assert await r.scores(QUERY, DOCS) == [0.0, 2.0, 3.0, 0.0]
        sent_path, body, headers = api.requests[-1]
        assert sent_path == path and body["documents"] == DOCS and body["query"] == QUERY
        assert body[count_field] == len(DOCS) and body["model"] == r.model and r.model
        assert headers["authorization"] == f"Bearer {KEY}"
        out = await reorder(r, QUERY, DOCS)
        assert out.order == [2, 1, 0, 3] and out.reranked and not out.degraded


async def test_tei_shape_needs_no_key() -> None:
    async with rerank_stand_in() as api:
        r = _reranker("tei", api.url)
        assert await r.scores(QUERY, DOCS) == [0.0, 2.0, 3.0, 0.0]
        path, body, headers = api.requests[-1]
        assert path == "/rerank" and body["texts"] == DOCS and "authorization" not in headers


async def test_only_the_top_n_are_sent_and_the_rest_keep_their_place() -> None:
    async with rerank_stand_in() as api:
        r = _reranker("tei", api.url, top_n=2)
        out = await reorder(r, QUERY, ["a cat", "cat mat hat", "cat mat hat again", "mat"])
        assert api.requests[-1][1]["texts"] == ["a cat", "cat mat hat"]
        assert out.order == [1, 0, 2, 3] and out.reranked


async def _degraded(r: HttpReranker) -> None:
    out = await reorder(r, QUERY, DOCS)
    assert out.order == [0, 1, 2, 3] and out.degraded and not out.reranked


async def test_every_failure_keeps_the_incoming_order_flagged_degraded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_RERANK_KEY", KEY)
    async with rerank_stand_in() as api:
        api.fail_next = 1
        await _degraded(_reranker("cohere", api.url))  # HTTP 503
        await _degraded(_reranker("cohere", api.url, api_key_env="TEST_RERANK_NO_SUCH_KEY"))  # no key
        monkeypatch.setenv("TEST_RERANK_KEY", "wrong")
        await _degraded(_reranker("voyage", api.url))  # HTTP 401
        api.short = True
        await _degraded(_reranker("tei", api.url))  # a document without a score
        api.short, api.delay_s = False, 1.0
        await _degraded(_reranker("tei", api.url, timeout_seconds=0.05))  # too slow
    await _degraded(_reranker("tei", free_url()))  # nobody listens
    assert (await reorder(None, QUERY, DOCS)).order == [0, 1, 2, 3]
    assert build_reranker(RerankSettings()) is None


NOTES = {
    **VAULT,
    "Pets/Dogs.md": "# Dogs\n\nA puppy needs walks twice a day and a warm basket.\n",
}


async def test_context_for_query_uses_the_configured_reranker(make_vault: Callable[..., Path]) -> None:
    question = "what does a puppy need?"
    root = make_vault(NOTES)
    async with semantic(root) as h:
        plain = await h.ok("context_for_query", query=question, max_tokens=400)
    assert not plain["reranked"] and not plain["degraded"]
    async with rerank_stand_in() as api:
        async with semantic(root, rerank={"provider": "tei", "base_url": api.url}) as h:
            out = await h.ok("context_for_query", query=question, max_tokens=400)
            assert out["reranked"] and not out["degraded"] and api.requests
            assert out["passages"][0]["path"] == "Pets/Dogs.md"
            assert api.requests[-1][1]["query"] == question
            hybrid = await h.ok("search_hybrid", query=question, limit=3)
            rag = await h.ok("rag_search", query=question, max_results=3)
        assert hybrid["reranked"] and rag["reranked"] and not hybrid["degraded"] and not rag["degraded"]
        assert hybrid["items"][0]["path"] == rag["results"][0]["path"] == "Pets/Dogs.md"
    async with semantic(root, rerank={"provider": "tei", "base_url": free_url()}) as h:
        down = await h.ok("context_for_query", query=question, max_tokens=400)
        hybrid = await h.ok("search_hybrid", query=question, limit=3)
    assert hybrid["degraded"] and not hybrid["reranked"]
    assert down["degraded"] and not down["reranked"]
    assert [p["path"] for p in down["passages"]] == [p["path"] for p in plain["passages"]]


PETS = {
    f"Pets/Animal{i}.md": f"# Animal {i}\n\nAnimal {i} is a pet that needs food, a vet and toys. Care note {i}.\n\n"
    f"## More\n\nWalks and play for pet {i}.\n"
    for i in range(12)
}


def hashed(query: str, doc: str) -> float:
    """A fixed score per document, unrelated to the vector order."""
    return int(hashlib.md5(doc.encode()).hexdigest()[:8], 16) / 2**32


async def _pages(h: Any, tool: str, key: str, **args: Any) -> list[tuple[str, int | None]]:
    seen: list[tuple[str, int | None]] = []
    out = await h.ok(tool, **args)
    for _ in range(40):
        assert out["reranked"] and not out["degraded"]
        seen += [(i["path"], i.get("chunk_index")) for i in out[key]]
        if not out["next_cursor"]:
            return seen
        out = await h.ok(tool, **args, cursor=out["next_cursor"])
    raise AssertionError("no last page")


async def test_pages_of_a_reranked_search_partition_one_reranked_order(make_vault: Callable[..., Path]) -> None:
    """With a reranker, the pages of rag_search and search_hybrid are cut from one reranked order:
    none repeats or skips a result (each page reranked a list as long as its own end)."""
    query = "what does a pet need"
    async with rerank_stand_in() as api:
        api.scorer = hashed
        async with semantic(make_vault(PETS), rerank={"provider": "tei", "base_url": api.url}) as h:
            whole = await h.ok("rag_search", query=query, max_results=50)
            paged = await _pages(h, "rag_search", "results", query=query, max_results=5)
            assert paged == [(r["path"], r["chunk_index"]) for r in whole["results"]]
            whole = await h.ok("search_hybrid", query=query, limit=50)
            assert len(whole["items"]) == 12
            paged = await _pages(h, "search_hybrid", "items", query=query, limit=4)
            assert paged == [(i["path"], None) for i in whole["items"]]
