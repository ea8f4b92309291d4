"""The audit's unlinked mentions come to every note in turn, end to end (real uvicorn, the SDK
client, both eras): in a vault of more than the 300 titles one run looked for, a mention of a
title past the first 300 was found at the next run only; a run now looks for as many titles as
fit its budget (5000 at most), so one run finds it, and none is marked gone after."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

VAULT = {f"Topics/Topic {i:03d}.md": f"# Topic {i:03d}\n\nA plain page.\n" for i in range(1, 331)}
VAULT["Notes/Reader.md"] = "# Reader\n\nI read about Topic 012 and then Topic 321 today.\n"


async def mentioned(c: Any) -> set[str]:
    items = (await ok(c, "list_findings", kind="unlinked_mention", status="open", limit=500))["items"]
    return {f["detail"]["mentions"] for f in items if f["detail"]["path"] == "Notes/Reader.md"}


async def test_mentions_in_turn_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "run_consolidation", jobs=["audit"], wait=True)
            assert await mentioned(c) == {"Topic 012", "Topic 321"}  # past the first 300 titles
            again = await ok(c, "run_consolidation", jobs=["audit"], wait=True)
            assert again["gone"] == 0, again
            assert await mentioned(c) == {"Topic 012", "Topic 321"}
            third = await ok(c, "run_consolidation", jobs=["audit"], wait=True)
            assert third["gone"] == 0, third
            assert await mentioned(c) == {"Topic 012", "Topic 321"}
