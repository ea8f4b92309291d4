"""What an SDK client over real HTTP sees while a vault's link graph is still being built: a call
whose budget ends first answers a structured, retryable index_unavailable (reason graph_building),
never a hang or a 500, and once the build (which went on) is done the same call answers. The
link load is held on an event (tests/tools/graph/test_graph_build.py's `Held`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.tools.graph.test_graph_build import VAULT, Held


async def test_a_graph_call_during_the_build_is_a_structured_retryable_error(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    held = Held(monkeypatch)
    try:
        async with e2e(make_vault(VAULT), limits={"max_eval_seconds": 0.3}) as (url, harness):
            await harness.indexed()
            async with Client(url) as client:
                first = await client.call_tool("central_notes", {"limit": 2})
                assert held.inside.is_set() and not held.ended.is_set()
                assert first.is_error and first.structured_content is not None
                error = first.structured_content["error"]
                assert error["code"] == "index_unavailable" and error["retryable"] is True
                assert error["details"]["reason"] == "graph_building" and "still being built" in error["message"]
                held.go.set()
                assert await asyncio.to_thread(held.ended.wait, 30)
                from service.tools.graph import views

                kept = views.VIEWS._kept[harness.indexer()]
                await asyncio.gather(*(b.task for b in list(kept.building.values())))
                again = await client.call_tool("central_notes", {"limit": 2})
                assert not again.is_error and again.structured_content is not None
                assert again.structured_content["notes"] == 6 and held.loads == 1
    finally:
        held.go.set()
