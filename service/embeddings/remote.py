"""What every HTTP embedding provider shares: one client, timeouts, batching, retry, outages.

A provider module says how to build one request for a batch of texts and how to read the
vectors out of the response (the provider's published shapes); this base sends it:

- at most `batch_size` texts per request, requests one after another;
- each request bounded by `timeout_seconds`; connection errors, timeouts, HTTP 429 and 5xx are
  retried `retries` times with exponential backoff (0.25 s, 0.5 s, 1 s, … capped at 8 s);
- anything else, or the retries used up, raises `EmbeddingUnavailable` with the status and the
  provider's message: callers report it (text search is unaffected) and never hang;
- a query whose retries were used up marks the provider down for `DOWN_S`: the queries meanwhile
  answer `EmbeddingUnavailable` at once (`details.retry_after_seconds`) instead of each waiting
  through the retries again (1.75 s with the defaults for a refused connection, up to four
  `timeout_seconds` for one that never answers); any answer but a 429 or 5xx ends it.

Query and document prefixes (e.g. `search_query: ` for nomic-embed-text) are applied here.
Texts reach a provider with their secrets redacted when the vault's `[sensitive]` mode redacts
(`remote`; the embedding job does it, `EmbeddingJob._outbound`).
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any, Literal

import httpx2
import numpy as np

from service.embeddings.protocol import Matrix, normalise
from service.errors import EmbeddingUnavailable
from service.settings import EmbeddingSettings

Kind = Literal["query", "document"]
DOWN_S = 30.0  # after a query's retries are used up, the queries of the next 30 s are not sent


class RemoteEmbedder:
    provider = "remote"
    default_url = ""
    default_model = ""
    key_env: str | None = None
    backoff_base = 0.25
    remote = True  # texts leave the process: the embedding job redacts secrets first (semantic/job.py)

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        self.model = settings.model or self.default_model
        self.base_url = (settings.base_url or self.default_url).rstrip("/")
        self._client: httpx2.AsyncClient | None = None
        self._down: tuple[float, str] | None = None  # (monotonic end, the last failure) after a query's outage
        self.query_prefix = settings.query_prefix if settings.query_prefix is not None else self._prefix("query")
        self.document_prefix = (
            settings.document_prefix if settings.document_prefix is not None else self._prefix("document")
        )

    def _prefix(self, kind: Kind) -> str:
        if "nomic-embed" in self.model:
            return "search_query: " if kind == "query" else "search_document: "
        if kind == "query" and self.model.startswith(("bge-", "BAAI/bge-")) and "-en" in self.model:
            return "Represent this sentence for searching relevant passages: "
        return ""

    @property
    def name(self) -> str:
        dims = f":{self.settings.dimensions}" if self.settings.dimensions else ""
        return f"{self.provider}:{self.model}{dims}"

    @property
    def backend(self) -> str:
        return self.base_url

    # -- provider-specific -------------------------------------------------------------------

    def request(self, texts: list[str], kind: Kind) -> tuple[str, dict[str, Any]]:
        """(path, JSON body) of one request."""
        raise NotImplementedError

    def vectors(self, body: Any) -> list[list[float]]:
        """The vectors of a response body, in input order."""
        raise NotImplementedError

    # -- shared ------------------------------------------------------------------------------

    def headers(self) -> dict[str, str]:
        env = self.settings.api_key_env or self.key_env
        if env is None:
            return {}
        key = os.environ.get(env)
        if not key:
            raise EmbeddingUnavailable(
                f"{self.provider} needs an API key in the environment variable {env}",
                details={"provider": self.provider, "env": env},
                hint=f"Set {env}, or [embeddings] api_key_env to the variable that holds the key.",
            )
        return {"Authorization": f"Bearer {key}"}

    def _http(self) -> httpx2.AsyncClient:
        if self._client is None:
            self._client = httpx2.AsyncClient(timeout=self.settings.timeout_seconds)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def _post(self, texts: list[str], kind: Kind) -> Matrix:
        down = self._down
        if kind == "query" and down is not None and time.monotonic() < down[0]:
            raise EmbeddingUnavailable(
                f"{self.provider} at {self.base_url} is unavailable ({down[1]})",
                details={
                    "provider": self.provider,
                    "url": self.base_url,
                    "attempts": 0,
                    "retry_after_seconds": round(down[0] - time.monotonic(), 1),
                },
                hint="Text search still works; semantic results return when the provider answers.",
            )
        path, payload = self.request(texts, kind)
        url = self.base_url + path
        headers = self.headers()
        last = ""
        for attempt in range(self.settings.retries + 1):
            if attempt:
                await asyncio.sleep(min(8.0, self.backoff_base * 2 ** (attempt - 1)))
            try:
                resp = await self._http().post(url, json=payload, headers=headers)
            except httpx2.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}"
                continue
            if resp.status_code == 429 or resp.status_code >= 500:
                last = f"HTTP {resp.status_code}: {resp.text[:200]}"
                continue
            self._down = None  # it answers
            if resp.status_code >= 400:
                raise EmbeddingUnavailable(
                    f"{self.provider} refused the request: HTTP {resp.status_code}",
                    details={"provider": self.provider, "status": resp.status_code, "body": resp.text[:300]},
                    hint="Check [embeddings] model, base_url and the API key.",
                )
            try:
                rows = self.vectors(resp.json())
                matrix = np.asarray(rows, dtype=np.float32)
            except (ValueError, KeyError, TypeError) as exc:
                raise EmbeddingUnavailable(
                    f"{self.provider} answered in an unexpected shape",
                    details={"provider": self.provider, "error": str(exc)[:200]},
                ) from exc
            if matrix.ndim != 2 or matrix.shape[0] != len(texts):
                raise EmbeddingUnavailable(
                    f"{self.provider} returned {matrix.shape[0] if matrix.ndim else 0} vectors for {len(texts)} texts",
                    details={"provider": self.provider},
                )
            return normalise(matrix)
        if kind == "query":
            self._down = (time.monotonic() + DOWN_S, last)
        raise EmbeddingUnavailable(
            f"{self.provider} at {self.base_url} is unavailable ({last})",
            details={"provider": self.provider, "url": self.base_url, "attempts": self.settings.retries + 1},
            hint="Text search still works; semantic results return when the provider answers.",
        )

    async def embed_documents(self, texts: list[str]) -> Matrix:
        size = self.settings.batch_size
        parts = [
            await self._post([self.document_prefix + t for t in texts[i : i + size]], "document")
            for i in range(0, len(texts), size)
        ]
        return np.vstack(parts) if parts else np.zeros((0, 1), dtype=np.float32)

    async def embed_query(self, text: str) -> Matrix:
        return await self._post([self.query_prefix + text], "query")
