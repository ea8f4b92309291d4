"""A written summary quotes the model's sentences as text only (M3 s85), as the digest quotes a
note's first sentence (`service.plane.quoting.quoted`, A4 s84).

Before, the model's sentence was kept as written: `#launch` in it became a tag of the kept
summary (read_note's tags, list_tags), `[[Roadmap]]` and `![[Big]]` a link and a transclusion of
the summary's, `Status:: draft` a Dataview field of it, and a line break in the answer put
`# Beta needs testers` on a line of its own: a heading of the summary. Now a link is the text it
shows, `#` is `&#35;`, `::` is `:&#58;`, each sentence is one line; its citations stay wikilinks.
Through the dispatch chain against the chat-completions stand-in (tests/tools/plane/test_gateway.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from service.plane.summaries import cited
from tests.conftest import started
from tests.tools.plane.test_gateway import VAULT, Model, serving, settings

ANSWER = (
    "The alpha launch is #launch work for [[Roadmap]] and ![[Big]] [1]. Status:: draft and\n"
    "# Beta needs testers [2]. A [map](Roadmap.md) with `#code` stays [1]."
)


class Marking(Model):
    async def chat(self, request: Request) -> Response:
        self.requests.append(await request.json())
        message = {"role": "assistant", "content": ANSWER}
        return JSONResponse({"choices": [{"index": 0, "message": message}], "usage": {"total_tokens": 50}})


def test_a_models_sentence_is_quoted_as_text_on_one_line() -> None:
    assert cited(ANSWER, ["A.md", "B.md"]) == [
        "The alpha launch is &#35;launch work for Roadmap and Big. [[A]]",
        "Status:&#58; draft and &#35; Beta needs testers. [[B]]",
        "A map with `#code` stays. [[A]]",
    ]


async def test_a_kept_summary_takes_no_tag_link_field_or_heading_from_the_model(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(VAULT)
    async with serving(Marking()) as url, started(root, **settings(url)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["summaries"])
        [summary] = (await vg.ok("list_findings", kind="summary"))["items"]
        await vg.ok("apply_finding", finding_id=summary["id"])
        [kept] = (root / "Digests").iterdir()
        rel = f"Digests/{kept.name}"
        await vg.settled()
        read = await vg.ok("read_note", path=rel)
        assert read["tags"] == [], read["tags"]
        assert "launch" not in {t["tag"] for t in (await vg.ok("list_tags"))["items"]}
        out = (await vg.ok("get_outlinks", path=rel))["items"]
        assert {o["path"] for o in out} == {"Projects/Alpha.md", "Projects/Beta.md"}, out  # its citations
        assert all(o["resolved"] for o in out), out  # no broken link to `Roadmap` or `Big`
        assert not [o for o in out if o["embed"]], out
        fields = (await vg.ok("eval_dataview_field", path=rel))["fields"]
        assert not {"status", "Status"} & set(fields), fields
        heads = [line for line in kept.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
        assert heads == ["# Summary " + kept.name.split(" ")[0], "## Projects"], heads
