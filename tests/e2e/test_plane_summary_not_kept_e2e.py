"""Written summaries end to end (real uvicorn, the SDK client, both eras, the chat-completions
stand-in of tests/tools/plane/test_gateway.py): a summary no one kept yet stays as it was beside
the next run's, and a run with nothing new leaves both open; the model's sentences are quoted as
text only, so the kept summary has no tag or link of the model's (M3 s85); a sentence holding an
unpaired `%%` keeps the text before it, as Obsidian shows it, and hides the rest (M4 s86)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.plane.test_gateway import VAULT, Model, serving, settings


async def test_a_summary_not_kept_stays_whole(make_vault: Callable[..., Path], mode: str) -> None:
    model = Model()
    model.extra = " Alpha is #launch work for [[Roadmap]] [1]. Beta ships Friday %% says the hidden draft [1]."
    async with serving(model) as model_url, e2e(make_vault(VAULT), **settings(model_url)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "run_consolidation", wait=True)
            [first] = (await ok(c, "list_findings", kind="summary"))["items"]
            await asyncio.sleep(1.1)  # mtimes after the first run's cursor
            await ok(c, "write_note", path="Projects/Gamma.md", content="# Gamma\n\nGamma starts in June.\n")
            await h.settled()
            await ok(c, "run_consolidation", wait=True)
            await asyncio.sleep(1.1)
            await ok(c, "run_consolidation", wait=True)  # nothing new since
            summaries = (await ok(c, "list_findings", kind="summary"))["items"]
            [kept] = [s for s in summaries if s["id"] == first["id"]]
            assert kept["detail"]["text"] == first["detail"]["text"], kept
            [later] = [s for s in summaries if s["id"] != first["id"]]
            assert "[[Projects/Gamma]]" in later["detail"]["text"], later
            assert "Alpha is &#35;launch work for Roadmap. [[" in first["detail"]["text"], first
            assert "Beta ships Friday [[" in first["detail"]["text"], first  # before the unpaired `%%`
            assert "hidden draft" not in first["detail"]["text"], first
            await ok(c, "apply_finding", finding_id=first["id"])
            await h.settled()
            rel = first["plan"]["steps"][0]["args"]["path"]
            assert (await ok(c, "read_note", path=rel))["tags"] == []
            out = (await ok(c, "get_outlinks", path=rel))["items"]
            assert out and all(o["path"].startswith("Projects/") and o["resolved"] for o in out), out
