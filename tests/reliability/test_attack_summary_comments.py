"""A model's sentence that would open an Obsidian comment in a kept summary (U1, session 80).

The summaries job keeps the model's sentences that cite the notes sent, and its plan writes them
as a note under Digests/. A sentence holding one `%%` (or an `<!--`) was kept as written, so in
the kept note Obsidian hid every line after it, the other folders' sentences and their links
included. Now such a sentence is left out like one citing nothing. Through the dispatch chain
against the chat-completions stand-in (tests/tools/plane/test_gateway.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from service.plane.summaries import cited
from tests.conftest import started
from tests.tools.plane.test_gateway import VAULT, Model, serving, settings


class Commenting(Model):
    async def chat(self, request: Request) -> Response:
        self.requests.append(await request.json())
        text = "The alpha launch %% moved to May [1]. Beta still needs testers [2]. Vendor <!-- review done [1]."
        message = {"role": "assistant", "content": text}
        return JSONResponse({"choices": [{"index": 0, "message": message}], "usage": {"total_tokens": 50}})


def test_sentences_that_open_a_comment_are_not_kept() -> None:
    kept = cited("A %% b [1]. Fine [2]. Pair %% x %% fine too [1]. Html <!-- open [2].", ["A.md", "B.md"])
    assert kept[:2] == ["Fine. [[B]]", "Pair %% x %% fine too. [[A]]"], kept
    assert not any(k.count("%%") % 2 or "<!--" in k for k in kept), kept


async def test_a_kept_summary_opens_no_comment(make_vault: Callable[..., Path]) -> None:
    async with serving(Commenting()) as url, started(make_vault(VAULT), **settings(url)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["summaries"])
        [summary] = (await vg.ok("list_findings", kind="summary"))["items"]
        await vg.ok("apply_finding", finding_id=summary["id"])
        [kept] = (vg.root / "Digests").iterdir()
        text = kept.read_text(encoding="utf-8")
    assert text.count("%%") % 2 == 0 and "<!--" not in text, text
    assert "Beta still needs testers" in text, text
