"""A model's sentence that would open an Obsidian comment in a kept summary (U1, session 80).

The summaries job keeps the model's sentences that cite the notes sent, and its plan writes them
as a note under Digests/. A sentence holding one `%%` (or an `<!--`) was kept as written, so in
the kept note Obsidian hid every line after it, the other folders' sentences and their links
included. Now such a sentence is left out like one citing nothing. Through the dispatch chain
against the chat-completions stand-in (tests/tools/plane/test_gateway.py).

So did a folder holding `%%` (its `## heading`) and each citation of a note in it (`[[Odd %%
folder/Alpha]]`), session 81: the heading writes the name with HTML entities, the citation is a
Markdown link with the path percent-encoded (`service.plane.digest.link_to`, as the digest's).
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


async def _kept_summary(root: Path) -> str:
    """The text of the summary a run makes (the stand-in answering as `Commenting`), once kept."""
    async with serving(Commenting()) as url, started(root, **settings(url)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["summaries"])
        [summary] = (await vg.ok("list_findings", kind="summary"))["items"]
        await vg.ok("apply_finding", finding_id=summary["id"])
        [kept] = (vg.root / "Digests").iterdir()
        return kept.read_text(encoding="utf-8")


def test_sentences_that_open_a_comment_are_not_kept() -> None:
    kept = cited("A %% b [1]. Fine [2]. Pair %% x %% fine too [1]. Html <!-- open [2].", ["A.md", "B.md"])
    assert kept[:2] == ["Fine. [[B]]", "Pair &#37;&#37; x &#37;&#37; fine too. [[A]]"], kept  # quoted as text (M3 s85)
    assert not any(k.count("%%") % 2 or "<!--" in k for k in kept), kept


async def test_a_kept_summary_opens_no_comment(make_vault: Callable[..., Path]) -> None:
    text = await _kept_summary(make_vault(VAULT))
    assert text.count("%%") % 2 == 0 and "<!--" not in text, text
    assert "Beta still needs testers" in text, text


async def test_a_folder_holding_a_comment_mark_opens_none(make_vault: Callable[..., Path]) -> None:
    vault = {p.replace("Projects/", "Odd %% folder/"): text for p, text in VAULT.items()}
    text = await _kept_summary(make_vault(vault))
    assert "%%" not in text and "<!--" not in text, text
    assert "## Odd &#37;&#37; folder" in text, text
    assert "Beta still needs testers. [Odd &#37;&#37; folder/" in text and "(Odd%20%25%25%20folder/" in text, text
