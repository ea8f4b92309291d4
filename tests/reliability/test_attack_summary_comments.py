"""A model's sentence that would open an Obsidian comment in a kept summary (U1, session 80).

The summaries job keeps the model's sentences that cite the notes sent, and its plan writes them
as a note under Digests/. A sentence holding one `%%` (or an `<!--`) was kept as written, so in
the kept note Obsidian hid every line after it, the other folders' sentences and their links
included. Then (session 80) such a sentence was left out like one citing nothing, and with it the
fact it started with. Now (M4 s86) it is kept as Obsidian shows a note holding it: the text before
an unpaired `%%` or an unclosed `<!--`, with its citations; the rest of that sentence is hidden (the
other sentences are not: each is quoted on its own line, its marks as HTML entities). Before, the
`!` of `<!--` also ended a sentence, so the text after an `<!--` was kept and the text before it
dropped. Through the dispatch chain against the chat-completions stand-in
(tests/tools/plane/test_gateway.py).

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


def test_a_sentence_that_opens_a_comment_keeps_the_text_before_it() -> None:
    answer = "A %% b [1]. Fine [2]. Pair %% x %% fine too [1]. Html <!-- open [2]. Shut <!-- c --> d <!-- e [1]."
    kept = cited(answer, ["A.md", "B.md"])
    assert kept == [
        "A [[A]]",  # as Obsidian shows it: the text before the unpaired `%%`, the rest hidden
        "Fine. [[B]]",
        "Pair &#37;&#37; x &#37;&#37; fine too. [[A]]",  # a pair: quoted as text (M3 s85)
        "Html [[B]]",
        "Shut &lt;!-- c --> d [[A]]",  # a closed `<!--` stays as text; the unclosed one hides the rest
    ], kept
    assert cited("%% all of it hidden [1]. Code `50%%` off [2].", ["A.md", "B.md"]) == ["Code `50%%` off. [[B]]"]


async def test_a_kept_summary_opens_no_comment(make_vault: Callable[..., Path]) -> None:
    text = await _kept_summary(make_vault(VAULT))
    assert text.count("%%") % 2 == 0 and "<!--" not in text, text
    assert "Beta still needs testers" in text, text
    # the text before each opener is kept with its citation; what Obsidian would hide is not written
    assert "The alpha launch [[Projects/" in text and "Vendor [[Projects/" in text, text  # [1]: the newer note
    assert "moved to May" not in text and "review done" not in text, text


async def test_a_folder_holding_a_comment_mark_opens_none(make_vault: Callable[..., Path]) -> None:
    vault = {p.replace("Projects/", "Odd %% folder/"): text for p, text in VAULT.items()}
    text = await _kept_summary(make_vault(vault))
    assert "%%" not in text and "<!--" not in text, text
    assert "## Odd &#37;&#37; folder" in text, text
    assert "Beta still needs testers. [Odd &#37;&#37; folder/" in text and "(Odd%20%25%25%20folder/" in text, text
