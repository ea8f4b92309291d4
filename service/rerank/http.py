"""Rerank over HTTP: the published request and response shapes of each provider.

| provider | request | response |
|---|---|---|
| cohere | `POST /v2/rerank` {model, query, documents, top_n} | {results: [{index, relevance_score}]} |
| voyage | `POST /v1/rerank` {model, query, documents, top_k} | {data: [{index, relevance_score}]} |
| jina   | `POST /v1/rerank` {model, query, documents, top_n} | {results: [{index, relevance_score}]} |
| tei    | `POST /rerank` {query, texts, truncate} | [{index, score}] |

Keys come from the environment (`Authorization: Bearer …`); each call is bounded by the
configured timeout (the caller, `protocol.reorder`, bounds it as well) and uses its own
connection (no client outlives a call, so nothing needs closing at shutdown). Anything but a usable
answer raises `RerankFailed`, never more than one request per call (no retries: a late rerank is
worth less than the unreranked order now).
"""

from __future__ import annotations

import os
from typing import Any

from service.rerank.protocol import Reranker, RerankFailed
from service.settings import RerankSettings

_DEFAULTS: dict[str, tuple[str, str, str | None]] = {
    # provider: (base URL, model, key variable)
    "cohere": ("https://api.cohere.com", "rerank-v3.5", "CO_API_KEY"),
    "voyage": ("https://api.voyageai.com", "rerank-2.5-lite", "VOYAGE_API_KEY"),
    "jina": ("https://api.jina.ai", "jina-reranker-v2-base-multilingual", "JINA_API_KEY"),
    "tei": ("http://127.0.0.1:8080", "", None),
}


class HttpReranker:
    def __init__(self, settings: RerankSettings) -> None:
        url, model, key_env = _DEFAULTS[settings.provider]
        self.provider = settings.provider
        self.model = settings.model or model
        self.base_url = (settings.base_url or url).rstrip("/")
        self.key_env = settings.api_key_env or key_env
        self._timeout = settings.timeout_seconds
        self._top_n = settings.top_n

    @property
    def name(self) -> str:
        return f"{self.provider}:{self.model}" if self.model else self.provider

    @property
    def timeout_s(self) -> float:
        return self._timeout

    @property
    def top_n(self) -> int:
        return self._top_n

    def request(self, query: str, documents: list[str]) -> tuple[str, dict[str, Any]]:
        """(path, JSON body) of one request."""
        if self.provider == "cohere":
            return "/v2/rerank", {"model": self.model, "query": query, "documents": documents, "top_n": len(documents)}
        if self.provider == "voyage":
            return "/v1/rerank", {"model": self.model, "query": query, "documents": documents, "top_k": len(documents)}
        if self.provider == "jina":
            return "/v1/rerank", {"model": self.model, "query": query, "documents": documents, "top_n": len(documents)}
        return "/rerank", {"query": query, "texts": documents, "truncate": True}

    def read(self, body: Any, count: int) -> list[float]:
        """Scores in input order from a response body."""
        if self.provider == "tei":
            items, field = body, "score"
        elif self.provider == "voyage":
            items, field = body["data"], "relevance_score"
        else:
            items, field = body["results"], "relevance_score"
        out: list[float | None] = [None] * count
        for item in items:
            out[int(item["index"])] = float(item[field])
        if any(s is None for s in out):
            raise RerankFailed(f"{self.provider} scored {sum(s is not None for s in out)} of {count} documents")
        return [float(s) for s in out if s is not None]

    def headers(self) -> dict[str, str]:
        if self.key_env is None:
            return {}
        key = os.environ.get(self.key_env)
        if not key:
            raise RerankFailed(f"{self.provider} needs an API key in the environment variable {self.key_env}")
        return {"Authorization": f"Bearer {key}"}

    async def scores(self, query: str, documents: list[str]) -> list[float]:
        import httpx2  # at the first request: a server that never calls out never loads it

        path, payload = self.request(query, documents)
        try:
            async with httpx2.AsyncClient(timeout=self._timeout) as client:
                resp = await client.post(self.base_url + path, json=payload, headers=self.headers())
        except httpx2.HTTPError as exc:
            raise RerankFailed(f"{type(exc).__name__}: {exc}") from exc
        if resp.status_code >= 400:
            raise RerankFailed(f"HTTP {resp.status_code}: {resp.text[:200]}")
        try:
            return self.read(resp.json(), len(documents))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise RerankFailed(f"{self.provider} answered in an unexpected shape: {exc}") from exc


def build_reranker(settings: RerankSettings) -> Reranker | None:
    """The configured reranker, or None when `[rerank] provider = "none"`."""
    return None if settings.provider == "none" else HttpReranker(settings)
