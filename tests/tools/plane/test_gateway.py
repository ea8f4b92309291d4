"""The inference gateway and the job that writes with it, against a local stand-in that follows the
published OpenAI chat-completions request and response shapes (`POST /v1/chat/completions`:
{model, messages, max_tokens} -> {choices: [{message: {content}}], usage: {total_tokens}}),
through the dispatch chain: a cited summary becomes a finding whose plan writes it; a server down,
slow, failing, answering garbage or uncited text, or a spent token budget, skips the job with the
reason (nothing found, nothing changed); text the ACL or the sensitive rules keep back is never sent."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from service.plane.summaries import cited
from tests.conftest import started
from tests.tools.bridges.standin import _Server  # the bridge stand-in's in-loop uvicorn server

VAULT = {
    "Projects/Alpha.md": "# Alpha\n\nThe alpha launch moved to May after the vendor review.\n",
    "Projects/Beta.md": "# Beta\n\nBeta needs two more testers before the release.\n",
    "Private/Diary.md": "# Diary\n\nMy private thoughts about the launch.\n",
    "Ops/Keys.md": "# Keys\n\nThe deploy token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 for now.\n",
}


class Model:
    """The stand-in's behaviour: `mode` is ok, uncited, garbage, shape, error or slow."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.requests: list[dict[str, Any]] = []
        self.release = asyncio.Event()
        self.extra = ""  # said after the usual answer (mode ok)

    async def chat(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        if self.mode == "slow":
            await asyncio.wait_for(self.release.wait(), 60)
        if self.mode == "error":
            return JSONResponse({"error": {"message": "overloaded"}}, status_code=503)
        if self.mode == "garbage":
            return PlainTextResponse("<html>not json</html>")
        if self.mode == "shape":
            return JSONResponse({"result": "no choices here"})
        prompt = body["messages"][-1]["content"]
        number = {t: m.group(1) for t in ("Alpha", "Beta") if (m := re.search(rf"\[(\d+)\] {t} ", prompt))}
        text = (
            "Things happened without sources."
            if self.mode == "uncited"
            else f"The alpha launch moved to May [{number.get('Alpha', 1)}]. Beta still needs testers "
            f"[{number.get('Beta', 2)}]. A sentence citing nothing. One citing a note never sent [9]." + self.extra
        )
        return JSONResponse(
            {
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
                "usage": {"total_tokens": 120},
            }
        )

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self.chat, methods=["POST"])])


@contextlib.asynccontextmanager
async def serving(model: Model) -> AsyncIterator[str]:
    server = _Server(uvicorn.Config(model.app(), host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(30):
            await server.ready.wait()
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        model.release.set()
        server.should_exit = True
        async with asyncio.timeout(30):
            await task


def settings(url: str, **extra: Any) -> dict[str, Any]:
    return {
        "inference": {"provider": "openai", "base_url": url, "model": "stand-in", "timeout_s": 2, **extra},
        "acl": {"prefix_rules": [{"path": "Private", "read": "deny"}]},
    }


async def summaries(vg: Any) -> dict[str, Any]:
    out = await vg.ok("run_consolidation", jobs=["summaries"], wait=True)
    return dict(out["jobs"][0])


def test_only_sentences_citing_notes_sent_are_kept_with_their_sources_as_links() -> None:
    kept = cited("A [1]. B [2][1]! C. D [7].", ["X/a.md", "Y/b.md"])
    assert kept == ["A. [[X/a]]", "B! [[Y/b]] [[X/a]]"]


async def test_a_cited_summary_becomes_a_finding_and_nothing_kept_back_is_sent(make_vault: Callable[..., Path]) -> None:
    model = Model()
    async with serving(model) as url, started(make_vault(VAULT), **settings(url)) as vg:
        await vg.indexed()
        status = await vg.ok("plane_status")
        assert status["gateway"] == f"stand-in at {url}"
        report = await summaries(vg)
        assert report["status"] == "ran" and report["findings"] == 1, report
        sent = json.dumps(model.requests)
        assert "alpha launch" in sent and model.requests[0]["model"] == "stand-in"
        assert "private thoughts" not in sent and "ghp_" not in sent  # the ACL's and the secret's notes
        found = (await vg.ok("list_findings", kind="summary"))["items"][0]
        text = found["detail"]["text"]
        assert "The alpha launch moved to May. [[Projects/Alpha]]" in text and "citing nothing" not in text
        assert "[9]" not in text and "never sent" not in text
        await vg.ok("apply_finding", finding_id=found["id"])
        assert any(p.name.endswith("summary.md") for p in (vg.root / "Digests").iterdir())


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("error", "HTTP 503"),
        ("garbage", "chat-completions shape"),
        ("shape", "chat-completions shape"),
        ("uncited", "no sentence citing"),
        ("slow", "too slow"),
    ],
)
async def test_a_failing_gateway_skips_the_job_with_the_reason(
    make_vault: Callable[..., Path], mode: str, reason: str
) -> None:
    model = Model()
    model.mode = mode
    async with serving(model) as url, started(make_vault(VAULT), **settings(url)) as vg:
        await vg.indexed()
        before = vg.snapshot()
        report = await summaries(vg)
        assert report["status"] == "skipped" and reason in report["reason"], report
        assert (await vg.ok("list_findings", kind="summary"))["items"] == []
        assert vg.snapshot() == before
        if mode != "uncited":
            assert "last error" in (await vg.ok("plane_status"))["gateway"]


async def test_the_token_budget_caps_a_run_and_a_closed_server_is_skipped(make_vault: Callable[..., Path]) -> None:
    model = Model()
    async with serving(model) as url, started(make_vault(VAULT), **settings(url, max_tokens_per_run=100)) as vg:
        await vg.indexed()
        report = await summaries(vg)
        assert report["status"] == "skipped" and "token budget" in report["reason"] and model.requests == []
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"
    async with started(make_vault(VAULT), **settings(closed)) as vg:
        await vg.indexed()
        report = await summaries(vg)
        assert report["status"] == "skipped" and "unreachable" in report["reason"]
