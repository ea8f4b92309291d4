"""The embedding job: an edit re-embeds only the chunks whose text changed, a move none; a
restart resumes without redoing finished chunks; a note edited by another program is embedded
again. Synchronised on the job's own completion signal (`wait_settled`), never on sleeps."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from service.semantic import engine as engine_module
from service.semantic import job as job_module
from service.semantic import store, vectors
from service.vault.events import FileChange
from tests.semantic.helpers import VAULT, job_of, semantic, settled


async def test_edit_reembeds_only_changed_chunks_and_move_none(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as h:
        job = job_of(h)
        start = job.embedded_total
        assert start >= len(VAULT)
        await h.ok("append_note", path="Baking/Sourdough.md", content="\nUse a banneton for the final proof.\n")
        await settled(h)
        assert job.embedded_total == start + 1  # only the last section's chunk changed
        found = await h.ok("search_semantic", query="basket for proofing dough", limit=1)
        assert found["items"][0]["path"] == "Baking/Sourdough.md"
        assert "banneton" in found["items"][0]["chunk"]
        await h.confirmed("move_note", path="Travel/Japan.md", new_path="Archive/Japan.md")
        await settled(h)
        assert job.embedded_total == start + 1  # same title, same text: vectors found by hash
        found = await h.ok("search_semantic", query="holiday abroad in asia", limit=1)
        assert found["items"][0]["path"] == "Archive/Japan.md"
        await h.ok("delete_note", path="Pets/Cats.md")
        await settled(h)
        found = await h.ok("search_semantic", query="kitten vaccinations", limit=10)
        assert "Pets/Cats.md" not in [i["path"] for i in found["items"]]
        rows = await h.app.db.fetchone(
            "SELECT COUNT(*) FROM chunks c LEFT JOIN notes n ON n.id = c.note_id WHERE n.id IS NULL"
        )
        assert rows[0] == 0


async def test_restart_resumes_without_redoing_finished_chunks(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with semantic(root) as h:
        total = job_of(h).embedded_total
        # As if the process had stopped half-way: two chunk texts have no vector yet.
        await h.app.db.run_write(
            lambda c: c.execute(
                "DELETE FROM embeddings WHERE hash IN (SELECT c.hash FROM chunks c JOIN notes n ON n.id = c.note_id "
                "WHERE n.path = 'Baking/Sourdough.md')"
            )
        )
        model = h.app.semantic.embedder().name
        counts = await h.app.db.run_read(lambda c: store.counts(c, "main", model))
        assert counts.backlog == 2
    async with semantic(root) as h:
        assert job_of(h).embedded_total == 2 < total
        status = await h.ok("index_status")
        assert status["embeddings"]["backlog"] == 0
        found = await h.ok("search_semantic", query="wild yeast culture", limit=1)
        assert found["items"][0]["path"] == "Baking/Sourdough.md"


async def test_note_edited_by_another_program_is_embedded_again(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT), index={"watch": True, "debounce_ms": 10}) as h:
        seen: list[FileChange] = []
        arrived = asyncio.Event()

        async def record(changes: Sequence[FileChange]) -> None:
            seen.extend(changes)
            if any(c.path == "Finance/Taxes.md" and c.origin == "external" for c in changes):
                arrived.set()

        h.app.vaults["main"].bus.subscribe(record)
        start = job_of(h).embedded_total
        (h.root / "Finance" / "Taxes.md").write_text(
            "# Taxes\n\nThe telescope shows Saturn's rings and Jupiter's moons on clear nights.\n", encoding="utf-8"
        )
        await asyncio.wait_for(arrived.wait(), 60)
        await settled(h)
        assert job_of(h).embedded_total == start + 1
        found = await h.ok("search_semantic", query="astronomy planets", limit=1)
        assert found["items"][0]["path"] == "Finance/Taxes.md"


async def test_empty_and_huge_notes_do_not_break_a_batch(make_vault: Callable[..., Path]) -> None:
    words = " ".join(f"lorem{i % 97} ipsum{i % 89}" for i in range(500))
    files = {**VAULT, "Huge.md": "# Huge\n\n" + words + "\n", "Blank.md": "", "Spaces.md": "\n\n   \n"}
    async with semantic(make_vault(files)) as h:
        job = job_of(h)
        assert job.state == "idle", job.error
        status = await h.ok("index_status")
        assert status["embeddings"]["backlog"] == 0
        rows = await h.app.db.fetchall(
            "SELECT MAX(c.tokens), COUNT(*) FROM chunks c JOIN notes n ON n.id = c.note_id WHERE n.path = 'Huge.md'"
        )
        assert rows[0][0] <= 256 and rows[0][1] > 5
        out = await h.ok("search_semantic", query="how do I make bread with a natural leaven", limit=1)
        assert out["items"][0]["path"] == "Baking/Sourdough.md"


async def test_a_backlog_read_in_small_pages_embeds_every_text_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pass walks the chunks page by page from the last id it got: with pages of one text
    and batches of one, every chunk text still gets its vector, and a text two notes share (same
    title, same body) is embedded once."""
    monkeypatch.setattr(job_module, "PENDING", 1)
    twin = "# Twin\n\nThe same passage in two folders, word for word.\n"
    vault = {**VAULT, "A/Twin.md": twin, "B/Twin.md": twin}
    async with semantic(make_vault(vault), embeddings={"provider": "builtin", "debounce_ms": 0, "batch_size": 1}) as h:
        status = await h.ok("index_status")
        assert status["embeddings"]["backlog"] == 0
        distinct = await h.app.db.fetchone("SELECT COUNT(DISTINCT hash), COUNT(*) FROM chunks")
        assert distinct[0] == distinct[1] - 1  # the twins share one text
        assert job_of(h).embedded_total == distinct[0]


async def test_a_chunk_that_reuses_a_deleted_id_is_embedded_and_in_vec0(make_vault: Callable[..., Path]) -> None:
    """After a finished pass the job looks only past its floor (the highest embedded chunk id).
    Chunk ids are SQLite rowids: replacing the vault's last chunk deletes the highest row and the
    new one takes the same id, at the floor. It must still get its vector and its vec0 row."""
    async with semantic(make_vault(VAULT)) as h:
        await h.ok("create_note", path="Zed/Last.md", content="# Last\n\nA note about tide pools and crabs.\n")
        await settled(h)
        top = await h.app.db.fetchone("SELECT MAX(id) FROM chunks")
        note = await h.app.db.fetchone("SELECT note_id FROM chunks WHERE id = ?", (top[0],))
        path = await h.app.db.fetchone("SELECT path FROM notes WHERE id = ?", (note[0],))
        assert path[0] == "Zed/Last.md"
        await h.ok("append_note", path="Zed/Last.md", content="\nHermit crabs trade shells as they grow.\n")
        await settled(h)
        again = await h.app.db.fetchone("SELECT MAX(id), text FROM chunks WHERE note_id = ?", (note[0],))
        assert again[0] == top[0]  # the replaced chunk took the deleted row's id
        assert "Hermit crabs" in again[1]
        status = await h.ok("index_status")
        assert status["embeddings"]["backlog"] == 0
        found = await h.ok("search_semantic", query="crabs swapping their shells", limit=1)
        assert found["items"][0]["path"] == "Zed/Last.md"
        assert "Hermit" in found["items"][0]["chunk"]
        if h.app.db.backends.vec:
            unsynced = await h.app.db.fetchone("SELECT COUNT(*) FROM chunks WHERE vec_model IS NULL")
            assert unsynced[0] == 0


async def test_reindex_after_a_finished_pass_embeds_everything_again(make_vault: Callable[..., Path]) -> None:
    """The floor of a finished pass is dropped by a reindex of the embeddings: the chunks made
    again start from low ids, below it, and every one gets its vector."""
    async with semantic(make_vault(VAULT)) as h:
        job = job_of(h)
        start = job.embedded_total
        await h.ok("reindex", mode="embeddings", wait=True)
        status = await h.ok("index_status")
        assert status["embeddings"]["backlog"] == 0
        assert job.embedded_total >= start + len(VAULT)
        found = await h.ok("search_semantic", query="basket for proofing dough", limit=3)
        assert "Baking/Sourdough.md" in [i["path"] for i in found["items"]]


async def test_the_first_pass_reads_the_scan_matrix_before_any_search(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restarted server holds the vault's vectors in memory once its first embedding pass ends,
    so its first search by meaning reads no matrix from scratch."""
    root = make_vault(VAULT)
    async with semantic(root):
        pass
    async with semantic(root) as h:
        engine = h.app.semantic
        held = engine.cache.held(job_of(h).vault.id, engine.embedder().name)
        assert held is not None
        assert held.live == (await engine.counts(job_of(h).vault.id)).embedded > 0

        def no_full_read(*args: object) -> object:
            raise AssertionError("read from scratch")

        monkeypatch.setattr(vectors, "_read", no_full_read)
        found = await h.ok("search_semantic", query="wild yeast culture", limit=1)
        assert found["items"][0]["path"] == "Baking/Sourdough.md"


async def test_without_preloading_the_first_search_by_meaning_reads_the_matrix(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`preload_vectors = false` (the stdio command's default): the first pass ends with no matrix
    in memory; the first search by meaning reads it, once."""
    root = make_vault(VAULT)
    async with semantic(root):
        pass
    reads: list[object] = []
    real = vectors._read

    def counted(*args: object) -> object:
        reads.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(vectors, "_read", counted)
    async with semantic(root, embeddings={"provider": "builtin", "debounce_ms": 0, "preload_vectors": False}) as h:
        engine = h.app.semantic
        assert engine.cache.held(job_of(h).vault.id, engine.embedder().name) is None and not reads
        for _ in range(2):
            found = await h.ok("search_semantic", query="wild yeast culture", limit=1)
            assert found["items"][0]["path"] == "Baking/Sourdough.md"
        assert len(reads) == 1
        assert engine.cache.held(job_of(h).vault.id, engine.embedder().name) is not None


async def test_a_reindex_of_one_vault_restores_the_vectors_it_shared_with_another(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """Vectors are kept by text, so a reindex of one vault drops the vectors of texts another
    vault also holds. That vault's job runs again (until one of the two has embedded them, its
    backlog is not zero): its counts (taken past its floor while it
    catches up, without a join once it has) and its searches see every chunk with a vector."""
    first = make_vault(VAULT)
    second = tmp_path / "second"
    second.mkdir()
    (second / "Bread.md").write_text(VAULT["Baking/Sourdough.md"], encoding="utf-8")
    vaults = [{"id": "main", "path": first}, {"id": "other", "path": second}]
    async with semantic(first, vaults=vaults) as h:
        other = job_of(h, "other")
        before = other.last_pass
        status = await h.ok("index_status", vault="other")
        assert status["embeddings"]["backlog"] == 0 and status["embeddings"]["chunks"] > 0
        await h.ok("reindex", mode="embeddings", wait=True)
        await settled(h)
        assert other.last_pass != before  # it ran again (the shared texts are embedded by one or the other)
        status = await h.ok("index_status", vault="other")
        model = h.app.semantic.embedder().name
        full = await h.app.db.run_read(lambda c: store.counts(c, "other", model))
        assert full.backlog == 0 and status["embeddings"]["embedded"] == full.embedded == full.chunks
        found = await h.ok("search_semantic", vault="other", query="wild yeast culture", limit=1)
        assert found["items"][0]["path"] == "Bread.md"


async def test_the_job_gives_way_to_a_call_running(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between batches the job waits for a pause in the calls (bounded; here without a bound):
    while a call runs it embeds nothing, and once the calls pause it goes on."""
    monkeypatch.setattr(job_module, "GIVE_WAY_MAX_S", None)
    async with semantic(make_vault(VAULT)) as h:
        job, activity = job_of(h), h.app.activity
        start = job.embedded_total
        waiting = asyncio.Event()
        quiet = activity.quiet

        async def spying(quiet_s: float = 1.0, *, within: float | None = None) -> None:
            if activity.running:
                waiting.set()
            await quiet(quiet_s, within=within)

        monkeypatch.setattr(activity, "quiet", spying)
        activity.begin()  # a call runs, as `Dispatcher.call` counts it
        try:
            await h.ok("create_note", path="Groves", content="# Groves\n\nOlive trees on dry hillsides.\n")
            await asyncio.wait_for(waiting.wait(), 60)
            assert job.embedded_total == start and job.state == "embedding"
        finally:
            activity.end()
        await settled(h)
        assert job.embedded_total > start
        found = await h.ok("search_semantic", query="olive groves on hills", limit=1)
        assert found["items"][0]["path"] == "Groves.md"


async def test_the_floor_rises_during_a_pass_and_counts_stay_exact(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pass raises the job's floor as each window of its backlog is stored, so the counts
    `index_status` takes mid-pass join only the chunks past it; they equal the full join's at
    every batch."""
    monkeypatch.setattr(job_module, "PENDING", 2)
    monkeypatch.setattr(engine_module, "COUNT_REUSE", 0)  # every batch's counts taken afresh
    embeddings = {"provider": "builtin", "debounce_ms": 0, "batch_size": 1}
    async with semantic(make_vault(VAULT), embeddings=embeddings) as h:
        job, engine = job_of(h), h.app.semantic
        model = engine.embedder().name
        seen: list[tuple[int, int, int, int]] = []

        async def progress(embedded: int, chunks: int) -> None:
            full = await h.app.db.run_read(lambda c: store.counts(c, "main", model))
            seen.append((job.floor(model), embedded, full.embedded, chunks - full.chunks))

        job.progress = progress
        await h.app.db.run_write(lambda c: c.execute("DELETE FROM embeddings"))  # every chunk waits
        job.kick()
        await settled(h)
        assert len(seen) >= 4
        assert all(ours == full and extra == 0 for _, ours, full, extra in seen), seen
        floors = [floor for floor, *_ in seen]
        assert floors == sorted(floors) and floors[-2] > 0, floors  # risen before the pass ended


async def test_counts_polled_during_a_pass_are_reused_for_ten_times_their_cost(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a pass runs, `index_status` polled back to back takes the counts once per ten times
    what they cost (a first pass at 10^5 notes joins ~600,000 chunks with their vectors); once
    the job is idle again they are exact at every call. The engine's clock is the test's: a count
    costs 1 s of it, and it moves only when the test moves it (no wall-clock window to outrun)."""
    async with semantic(make_vault(VAULT)) as h:
        job, engine = job_of(h), h.app.semantic
        taken: list[int] = []
        real = store.counts
        clock = [1000.0]
        monkeypatch.setattr(engine_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))

        def slow(conn: Any, vault_id: str, model: str, after: int = 0) -> store.Counts:
            taken.append(after)
            clock[0] += 1.0  # a count that costs 1 s: reused for the next 10 s
            return real(conn, vault_id, model, after)

        monkeypatch.setattr(store, "counts", slow)
        engine._counted.clear()  # the pass itself took counts (job.py)
        job.state = "embedding"  # as during a pass: not caught up
        try:
            first = await h.ok("index_status")
            clock[0] += 8.5  # 9.5 s after the count began: within ten times its cost
            second = await h.ok("index_status")
            assert len(taken) == 1 and first["embeddings"]["embedded"] == second["embeddings"]["embedded"]
            clock[0] += 1.0  # 10.5 s: past it, taken afresh
            await h.ok("index_status")
            assert len(taken) == 2
        finally:
            job.state = "idle"
        await h.ok("index_status")
        assert len(taken) == 2  # caught up: the settled counts, no join
        engine._counted.clear()
        job.state = "embedding"
        try:
            await h.ok("index_status")
            assert len(taken) == 3
        finally:
            job.state = "idle"


async def test_the_first_pass_reads_stale_notes_from_where_it_left_off(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each page of notes to chunk is asked from the last note id the pass got, not from the
    start of the vault (which walked every note chunked before it again: quadratic in the
    vault), and every note is still chunked once."""
    monkeypatch.setattr(job_module, "CHUNK_NOTES", 2)
    asked: list[int] = []
    original = store.stale_notes

    def spying(conn: Any, vault_id: str, limit: int, after: int = 0) -> list[store.Source]:
        found = original(conn, vault_id, limit, after)
        asked.append(after)
        return found

    monkeypatch.setattr(store, "stale_notes", spying)
    async with semantic(make_vault(VAULT), embeddings={"provider": "builtin", "debounce_ms": 0}) as h:
        await settled(h)
        notes = await h.app.db.fetchone("SELECT COUNT(*) FROM notes")
        sources = await h.app.db.fetchone("SELECT COUNT(*), COUNT(DISTINCT note_id) FROM chunk_sources")
    assert sources[0] == sources[1] == notes[0]
    first_pass = asked[: asked.index(0, 1)] if 0 in asked[1:] else asked
    assert len(first_pass) >= notes[0] // 2 + 1
    assert first_pass == sorted(set(first_pass)), asked  # strictly rising: never from the start again


async def test_a_wait_that_times_out_says_where_the_job_stands(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with semantic(make_vault(VAULT)) as h:
        job = job_of(h)
        stuck = asyncio.Event()

        async def hangs(self: job_module.EmbeddingJob, *, gc: bool = False) -> None:
            self.state = "embedding"
            await stuck.wait()

        monkeypatch.setattr(job_module.EmbeddingJob, "run_pass", hangs)
        job.kick()
        with pytest.raises(TimeoutError) as raised:
            await job.wait_settled(within=0.3)
        message = str(raised.value)
        assert "state embedding" in message and "_run:" in message and "hangs:" in message
        stuck.set()


async def test_a_batch_applied_before_the_follower_starts_wakes_the_job(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first pass starts in the same step that creates the task following the indexer; a
    batch applied before that task runs (here: as the pass begins) must still wake a second pass
    (the CI failure: "pass of generation 2 of 3, woken False", the job idle for ever)."""
    real = job_module.EmbeddingJob.run_pass
    bumped: list[int] = []
    began = asyncio.Event()

    async def bumps_first(self: job_module.EmbeddingJob, *, gc: bool = False) -> None:
        if not bumped:
            ix = job_module.indexer_of(self.vault)
            assert ix is not None
            await ix._bump()  # no suspension: the follower has not taken a step yet
            bumped.append(ix.generation)
            began.set()
        await real(self, gc=gc)

    async with semantic(make_vault(VAULT)) as h:
        job = job_of(h)
        await job.stop()  # a settled vault: nothing else will bump the generation
        monkeypatch.setattr(job_module.EmbeddingJob, "run_pass", bumps_first)
        await job.start()
        await asyncio.wait_for(began.wait(), 60)
        await job.wait_settled(within=120)  # the default: a pass of the real model
        assert bumped and job._tried_gen >= bumped[0]
