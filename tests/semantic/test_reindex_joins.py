"""`reindex {mode: "embeddings"}` while one runs joins it (docs/tools-guide.md, index: "a second
call joins the running job"): the vectors made so far are kept and the job is not started over;
once its pass has ended, a call starts a new one. Through the real dispatch chain, with the
builtin model held between batches so that the reindex is caught running."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.semantic.helpers import VAULT, job_of, semantic


async def test_a_second_embeddings_reindex_joins_the_running_one(make_vault: Callable[..., Path]) -> None:
    embeddings = {"provider": "builtin", "debounce_ms": 0, "batch_size": 2}
    async with semantic(make_vault(VAULT), embeddings=embeddings) as h:
        embedder = h.app.semantic.embedder()
        original = embedder.embed_documents
        calls = [0]
        gate, stored = asyncio.Event(), asyncio.Event()

        async def held(texts: list[str]) -> Any:
            calls[0] += 1
            if calls[0] == 3:  # two batches are in flight at once: the third begins once the first is stored
                stored.set()
            if calls[0] > 1:  # the first batch goes through, the rest wait for the gate
                await gate.wait()
            return await original(texts)

        embedder.embed_documents = held  # type: ignore[method-assign]
        first = await h.ok("reindex", mode="embeddings", wait=False)
        assert first["already_running"] is False

        async def embedded() -> int:
            return int((await h.ok("index_status"))["embeddings"]["embedded"] or 0)

        async def first_batch_counted() -> int:
            # index_status may reuse counts taken a moment before the store while the pass runs
            # (engine.counts, COUNT_REUSE): under load that moment lasts; poll until it has passed.
            for _ in range(1200):
                if (count := await embedded()) >= 2:
                    return count
                await asyncio.sleep(0.05)
            raise AssertionError("the first batch's vectors were never counted")

        await asyncio.wait_for(stored.wait(), 60)
        before = await first_batch_counted()
        second = await h.ok("reindex", mode="embeddings", wait=False)
        assert second["already_running"] is True
        assert second["job"]["started_at"] == first["job"]["started_at"]
        assert second["job"]["status"] == "running"
        assert await embedded() >= before  # nothing dropped, nothing started over

        gate.set()
        await job_of(h).wait_settled()
        status = (await h.ok("index_status"))["embeddings"]
        assert status["embedded"] == status["chunks"] and status["backlog"] == 0
        third = await h.ok("reindex", mode="embeddings", wait=True)  # the reindex ended: a new one begins
        assert third["already_running"] is False and third["job"]["status"] == "done"
