"""A local stand-in for the rerank APIs, following each one's published request and response
shapes: Cohere `POST /v2/rerank` and Jina `POST /v1/rerank` ({model, query, documents, top_n} →
{results: [{index, relevance_score}]}), Voyage `POST /v1/rerank` ({model, query, documents,
top_k} → {data: [{index, relevance_score}]}), text-embeddings-inference `POST /rerank`
({query, texts} → [{index, score}]). A document's score is the number of distinct query words
it contains; results come back best first (clients must place them by `index`). `fail_next`
answers 503; `delay_s` holds each answer; `short` drops the last result; `scorer` replaces the
score (each document's own, whatever else is sent, as a cross-encoder's)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.semantic.standin import serve_local

KEY = "rerank-key"


def score(query: str, doc: str) -> float:
    words = set(re.findall(r"\w+", query.lower()))
    return float(len(words & set(re.findall(r"\w+", doc.lower()))))


@dataclass
class RerankStandIn:
    url: str = ""
    requests: list[tuple[str, dict[str, Any], dict[str, str]]] = field(default_factory=list)
    fail_next: int = 0
    delay_s: float = 0.0
    short: bool = False
    scorer: Callable[[str, str], float] = score

    async def _body(self, request: Request, need_key: bool) -> dict[str, Any] | Response:
        body = json.loads(await request.body())
        self.requests.append((request.url.path, body, dict(request.headers)))
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if self.fail_next:
            self.fail_next -= 1
            return JSONResponse({"message": "overloaded"}, status_code=503)
        if need_key and request.headers.get("authorization") != f"Bearer {KEY}":
            return JSONResponse({"message": "invalid api key"}, status_code=401)
        return dict(body)

    def _ranked(self, query: str, docs: list[str]) -> list[tuple[int, float]]:
        out = sorted(((i, self.scorer(query, d)) for i, d in enumerate(docs)), key=lambda p: (-p[1], p[0]))
        return out[:-1] if self.short else out

    async def cohere_like(self, request: Request) -> Response:
        body = await self._body(request, need_key=True)
        if isinstance(body, Response):
            return body
        if not isinstance(body.get("query"), str) or not isinstance(body.get("documents"), list):
            return JSONResponse({"message": "query and documents are required"}, status_code=400)
        ranked = self._ranked(body["query"], body["documents"])
        if "top_k" in body:  # Voyage
            data = [{"index": i, "relevance_score": s} for i, s in ranked]
            return JSONResponse({"object": "list", "data": data, "model": body.get("model"), "usage": {}})
        results = [{"index": i, "relevance_score": s} for i, s in ranked[: body.get("top_n") or len(ranked)]]
        return JSONResponse({"id": "x", "results": results, "meta": {}})

    async def tei(self, request: Request) -> Response:
        body = await self._body(request, need_key=False)
        if isinstance(body, Response):
            return body
        if not isinstance(body.get("query"), str) or not isinstance(body.get("texts"), list):
            return JSONResponse({"error": "query and texts are required"}, status_code=422)
        return JSONResponse([{"index": i, "score": s} for i, s in self._ranked(body["query"], body["texts"])])


@contextlib.asynccontextmanager
async def rerank_stand_in() -> AsyncIterator[RerankStandIn]:
    state = RerankStandIn()
    app = Starlette(
        routes=[
            Route("/v2/rerank", state.cohere_like, methods=["POST"]),
            Route("/v1/rerank", state.cohere_like, methods=["POST"]),
            Route("/rerank", state.tei, methods=["POST"]),
        ]
    )
    async with serve_local(app) as url:
        state.url = url
        yield state
