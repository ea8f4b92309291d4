"""Written summaries end to end (real uvicorn, the SDK client, both eras, the chat-completions
stand-in of tests/tools/plane/test_gateway.py): a summary no one kept yet stays as it was beside
the next run's, and a run with nothing new leaves both open."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.plane.test_gateway import VAULT, Model, serving, settings


async def test_a_summary_not_kept_stays_whole(make_vault: Callable[..., Path], mode: str) -> None:
    async with serving(Model()) as model_url, e2e(make_vault(VAULT), **settings(model_url)) as (url, h):
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
