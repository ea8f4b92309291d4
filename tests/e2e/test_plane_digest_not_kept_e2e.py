"""The digest end to end (real uvicorn, the SDK client, both eras): a digest no one kept yet is
covered by the next run's, which keeps its notes beside the new ones, and a run with nothing new
leaves it open (it replaced it with the later changes only, or marked it gone)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

VAULT = {"Home.md": "# Home\n[[Morning]]\n", "Morning.md": "# Morning\n\nThe morning plan. [[Home]]\n"}


async def test_a_digest_not_kept_stays_whole(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "run_consolidation", wait=True)
            [first] = (await ok(c, "list_findings", kind="digest"))["items"]
            await asyncio.sleep(1.1)  # mtimes after the first run's cursor
            await ok(c, "write_note", path="Afternoon.md", content="# Afternoon\n\nA decision. [[Home]]\n")
            await h.settled()
            await ok(c, "run_consolidation", wait=True)
            await asyncio.sleep(1.1)
            await ok(c, "run_consolidation", wait=True)  # nothing new since
            digests = (await ok(c, "list_findings", kind="digest"))["items"]
            assert [d["id"] for d in digests] == [first["id"]], digests  # not gone
            text = digests[0]["detail"]["text"]
            assert "[[Morning|Morning]]" in text and "[[Afternoon|Afternoon]]" in text, text
