"""A local stand-in for the embedding APIs, following each one's published request and response
shapes (Ollama `/api/embed`, OpenAI `/v1/embeddings`, Voyage `/v1/embeddings`, Cohere
`/v2/embed`). Vectors are deterministic bags of hashed words (64 dimensions, or `dim`), so texts
that share words are near each other. `fail_next` makes the next N requests answer 503; `down`
stops answering (connection refused)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

DIM = 64
KEY = "test-key"


def vector(text: str, dim: int = DIM) -> list[float]:
    out = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        if word in ("search_query", "search_document"):
            continue
        out[int(hashlib.md5(word.encode()).hexdigest(), 16) % dim] += 1.0
    return out if any(out) else [1.0] + [0.0] * (dim - 1)


@dataclass
class StandIn:
    url: str = ""
    requests: list[tuple[str, dict[str, Any], dict[str, str]]] = field(default_factory=list)
    fail_next: int = 0
    dim: int = DIM

    def _check(self, request: Request, body: dict[str, Any], need_key: bool) -> Response | None:
        self.requests.append((request.url.path, body, dict(request.headers)))
        if self.fail_next:
            self.fail_next -= 1
            return JSONResponse({"error": "overloaded"}, status_code=503)
        if need_key and request.headers.get("authorization") != f"Bearer {KEY}":
            return JSONResponse({"error": {"message": "invalid api key"}}, status_code=401)
        return None

    async def ollama(self, request: Request) -> Response:
        body = json.loads(await request.body())
        bad = self._check(request, body, need_key=False)
        if bad is not None:
            return bad
        if not isinstance(body.get("model"), str) or not isinstance(body.get("input"), list):
            return JSONResponse({"error": "model and input are required"}, status_code=400)
        return JSONResponse({"model": body["model"], "embeddings": [vector(t, self.dim) for t in body["input"]]})

    async def openai_like(self, request: Request) -> Response:
        body = json.loads(await request.body())
        bad = self._check(request, body, need_key=True)
        if bad is not None:
            return bad
        if not isinstance(body.get("model"), str) or not isinstance(body.get("input"), list):
            return JSONResponse({"error": {"message": "model and input are required"}}, status_code=400)
        if "input_type" in body and body["input_type"] not in ("query", "document", None):
            return JSONResponse({"detail": "bad input_type"}, status_code=400)
        data = [
            {"object": "embedding", "index": i, "embedding": vector(t, self.dim)} for i, t in enumerate(body["input"])
        ]
        data.reverse()  # clients must order by `index`
        return JSONResponse({"object": "list", "data": data, "model": body["model"], "usage": {"total_tokens": 1}})

    async def cohere(self, request: Request) -> Response:
        body = json.loads(await request.body())
        bad = self._check(request, body, need_key=True)
        if bad is not None:
            return bad
        if body.get("input_type") not in ("search_query", "search_document", "classification", "clustering"):
            return JSONResponse({"message": "input_type is required"}, status_code=400)
        if body.get("embedding_types") != ["float"] or not isinstance(body.get("texts"), list):
            return JSONResponse({"message": "texts and embedding_types are required"}, status_code=400)
        return JSONResponse(
            {
                "id": "x",
                "embeddings": {"float": [vector(t, self.dim) for t in body["texts"]]},
                "texts": body["texts"],
                "meta": {"api_version": {"version": "2"}},
                "response_type": "embeddings_by_type",
            }
        )


@contextlib.asynccontextmanager
async def serve_local(app: Starlette) -> AsyncIterator[str]:
    """`app` on a free loopback port for the block; yields its base URL. The socket names its
    protocol (IPPROTO_TCP) so that asyncio sets TCP_NODELAY on accepted connections: without it a
    response written as headers then body waits for the client's delayed ACK, 40 ms a request on
    a kept-alive connection."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    server = uvicorn.Server(uvicorn.Config(app, log_level="error"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 60)
        sock.close()


@contextlib.asynccontextmanager
async def stand_in(dim: int = DIM) -> AsyncIterator[StandIn]:
    state = StandIn(dim=dim)
    app = Starlette(
        routes=[
            Route("/api/embed", state.ollama, methods=["POST"]),
            Route("/v1/embeddings", state.openai_like, methods=["POST"]),
            Route("/v2/embed", state.cohere, methods=["POST"]),
        ]
    )
    async with serve_local(app) as url:
        state.url = url
        yield state


def free_url() -> str:
    """A loopback URL nothing listens on (connection refused)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}"
