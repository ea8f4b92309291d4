"""After a restart the embedding job has no floor until its first pass ends, and a search by
meaning asked whether every chunk has its vector by joining each chunk with it (~2 s at 100,000
notes, in each search until the pass ended). The vault's mark (`store.save_mark`, kept across
restarts) answers instead while no chunk or vector changed since; the answer (`complete`) stays
what the chunks say when notes are edited or vectors go missing meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from service.semantic import store
from service.semantic.job import EmbeddingJob
from tests.conftest import Harness, started
from tests.semantic.helpers import VAULT, model_ready, semantic, settled

EMBEDDINGS = {"provider": "builtin", "debounce_ms": 0}


@asynccontextmanager
async def held(root: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[Harness, asyncio.Event, list[int]]]:
    """A restarted server whose embedding job waits at `gate` before its pass (so it has no
    floor and has not caught up), and a list that grows by one at each walk of the chunks for
    missing vectors (`store.pending`) outside the job."""
    gate = asyncio.Event()
    walks: list[int] = []
    real_pass, real_pending = EmbeddingJob.run_pass, store.pending

    async def gated(self: EmbeddingJob, **kw: Any) -> None:
        await gate.wait()
        await real_pass(self, **kw)

    def counted(*args: Any, **kw: Any) -> list[tuple[int, str, str]]:
        walks.append(1)
        return real_pending(*args, **kw)

    monkeypatch.setattr(EmbeddingJob, "run_pass", gated)
    monkeypatch.setattr(store, "pending", counted)
    await model_ready()
    try:
        async with started(root, embeddings=EMBEDDINGS) as h:
            await h.indexed()
            yield h, gate, walks
    finally:  # these two only: `monkeypatch.undo()` would also restore the fixtures' cache folders
        monkeypatch.setattr(EmbeddingJob, "run_pass", real_pass)
        monkeypatch.setattr(store, "pending", real_pending)


async def complete(h: Harness, query: str = "wild yeast culture") -> bool:
    found = await h.ok("search_semantic", query=query, limit=3)
    hybrid = await h.ok("search_hybrid", query=query, limit=3)
    assert found["complete"] == hybrid["complete"]
    return bool(found["complete"])


async def test_a_restarted_search_trusts_the_mark_until_chunks_or_vectors_change(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault(VAULT)
    async with semantic(root, embeddings=EMBEDDINGS) as h:
        model = h.app.semantic.embedder().name
        assert await h.app.db.run_read(lambda c: store.mark_holds(c, "main", model))

    async with held(root, monkeypatch) as (h, gate, walks):
        job = h.app.semantic.jobs["main"]
        assert not job.caught_up and job.floor(model) == 0
        assert await complete(h)
        assert walks == []  # answered by the mark: the chunks were not walked
        # A note edited while the job has not run: a chunk waits, the answer says so.
        await h.ok("append_note", path="Baking/Sourdough.md", content="\nUse a banneton for the final proof.\n")
        assert not await complete(h)
        gate.set()
        await settled(h)
        assert await complete(h, "basket for proofing dough")
        assert await h.app.db.run_read(lambda c: store.mark_holds(c, "main", model))
        # As if a later pass had stopped half-way: a note's chunks lost their vectors.
        await h.app.db.run_write(
            lambda c: c.execute(
                "DELETE FROM embeddings WHERE hash IN (SELECT c.hash FROM chunks c JOIN notes n ON n.id = c.note_id "
                "WHERE n.path = 'Pets/Cats.md')"
            )
        )
        assert not await h.app.db.run_read(lambda c: store.mark_holds(c, "main", model))

    async with held(root, monkeypatch) as (h, gate, walks):
        assert not await complete(h, "kitten vaccinations")  # the mark no longer holds: the chunks say so
        assert walks  # ... found by walking them
        gate.set()
        await settled(h)
        assert await complete(h, "kitten vaccinations")
        assert await h.app.db.run_read(lambda c: store.mark_holds(c, "main", model))


async def test_a_mark_for_another_model_or_a_vector_stored_since_does_not_hold(
    make_vault: Callable[..., Path],
) -> None:
    async with semantic(make_vault(VAULT), embeddings=EMBEDDINGS) as h:
        model = h.app.semantic.embedder().name
        db = h.app.db
        assert await db.run_read(lambda c: store.mark_holds(c, "main", model))
        assert not await db.run_read(lambda c: store.mark_holds(c, "main", "other-model"))
        assert not await db.run_read(lambda c: store.mark_holds(c, "elsewhere", model))
        # Any vector stored for a chunk's text logs a change past the mark (conservative: walk again).
        await db.run_write(
            lambda c: c.execute(
                "INSERT OR REPLACE INTO embeddings(model, hash, vector) SELECT 'other-model', hash, x'00000000' "
                "FROM chunks LIMIT 1"
            )
        )
        assert not await db.run_read(lambda c: store.mark_holds(c, "main", model))
        assert not await db.run_read(lambda c: store.has_backlog(c, "main", model))  # the walk: nothing missing


async def test_a_restarted_job_starts_past_the_chunks_the_mark_covers(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its first pass after a restart walked every chunk for a missing vector (~7 s of CPU at
    583,000 chunks, beside the searches, each of which checked the backlog until it ended)."""
    root = make_vault(VAULT)
    async with semantic(root, embeddings=EMBEDDINGS) as h:
        model = h.app.semantic.embedder().name

    async with held(root, monkeypatch) as (h, gate, _walks):
        job = h.app.semantic.jobs["main"]
        starts: list[int] = []
        counted = store.pending

        def from_where(conn: Any, vault_id: str, model: str, limit: int, after: int = 0) -> Any:
            starts.append(after)
            return counted(conn, vault_id, model, limit, after)

        monkeypatch.setattr(store, "pending", from_where)
        gate.set()
        await settled(h)
        top = await h.app.db.run_read(lambda c: store.top_chunk_id(c, "main"))
        assert job.caught_up and job.floor(model) == top > 0
        assert starts and 0 not in starts  # every look starts past the chunks the mark covers
        assert await complete(h)
        # An edit since: its chunks are past the mark, the next pass finds and embeds them.
        await h.ok("append_note", path="Baking/Sourdough.md", content="\nUse a banneton for the final proof.\n")
        await settled(h)
        assert await complete(h, "basket for proofing dough")
        assert await h.app.db.run_read(lambda c: store.mark_holds(c, "main", model))
