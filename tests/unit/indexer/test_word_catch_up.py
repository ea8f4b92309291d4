"""The end of a cold bulk load. It indexes the words of the notes it has stored while its writer
waits for parsed batches, and adds only the rest at the end (`service/indexer/words.py`): the word
index it leaves is the one a rebuild from `note_text` gives (FTS5's integrity check against the
content table, the same search answers), and it follows edits afterwards. Its WAL is checkpointed
beside the writer once the index is ready, not by the commit that ends the load, and the writer's
auto-checkpoints come back (also after a failed load)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from service.indexer import parsepool, reconcile, runner
from service.indexer.runner import VaultIndexer
from tests.conftest import Harness, started

NOTES = {f"N/n{i:02}.md": f"# Note {i}\n\nword{i}x and a garden plan, part {i % 3}.\n" for i in range(30)}
QUERIES = ("garden", "plan part", "word7x", "gardening OR word12x", "note")


async def settled(vg: Harness) -> None:
    """After ready, a cold load's query indexes, then its trigram index and a merge of the word
    index's segments, are built in the background (`bulk.QueryIndexes`, `reconcile.py`)."""
    ix = vg.indexer()
    await ix.query_indexes.settled()
    await ix.trigram.settled()
    await ix.word_merge.settled()


def slow_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each parsed batch takes a while to arrive, as from a busy parse worker: the writer waits."""
    original = parsepool.Parser.batch

    async def slow(parser: parsepool.Parser, batch: Sequence[str], known: dict[str, str]) -> parsepool.Batch:
        done = await original(parser, batch, known)
        await asyncio.sleep(0.05)
        return done

    monkeypatch.setattr(parsepool.Parser, "batch", slow)


def words_at_each_batch(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(notes stored, notes in the word index) as each batch of the load is written."""
    seen: list[tuple[int, int]] = []
    original = VaultIndexer._write_batch

    def spy(indexer: VaultIndexer, conn: Any, **kwargs: Any) -> Any:
        stored = conn.execute("SELECT count(*) FROM note_text").fetchone()[0]
        seen.append((stored, conn.execute("SELECT count(*) FROM fts_words_docsize").fetchone()[0]))
        return original(indexer, conn, **kwargs)

    monkeypatch.setattr(VaultIndexer, "_write_batch", spy)
    return seen


async def _answers(vg: Harness) -> list[dict[str, Any]]:
    return [await vg.ok("search_text", query=q, limit=50) for q in QUERIES]


async def test_a_cold_load_indexes_words_while_it_waits_and_ends_with_the_rebuilt_index(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 3)
    monkeypatch.setattr(runner, "BATCH", 4)
    slow_parse(monkeypatch)
    seen = words_at_each_batch(monkeypatch)
    async with started(make_vault(NOTES), index={"parse_workers": 0}) as vg:
        await vg.indexed()
        db = vg.app.services.db
        # While the load ran, the words of notes already stored were indexed, never of others.
        assert len(seen) == 8 and all(words <= stored for stored, words in seen)
        assert any(words > 0 for _stored, words in seen)
        # At the end, the rest: the index is exactly what the rows hold (FTS5 checks it against
        # note_text, and raises otherwise), and answers as one rebuilt in one pass.
        check = "INSERT INTO fts_words(fts_words, rank) VALUES ('integrity-check', 1)"
        await db.run_write(lambda c: c.execute(check))
        assert (await db.fetchone("SELECT count(*) FROM fts_words_docsize"))[0] == len(NOTES)
        for i in (0, 7, 29):
            found = await vg.ok("search_text", query=f"word{i}x")
            assert [h["path"] for h in found["items"]] == [f"N/n{i:02}.md"]
        answers = await _answers(vg)
        await db.run_write(lambda c: c.execute("INSERT INTO fts_words(fts_words) VALUES ('rebuild')"))
        assert await _answers(vg) == answers
        # The triggers are back: edits reach the word index again.
        await vg.ok("create_note", path="Later", content="# Later\n\nA zeppelin garden.\n")
        found = await vg.ok("search_text", query="zeppelin")
        assert [h["path"] for h in found["items"]] == ["Later.md"]
        await db.run_write(lambda c: c.execute(check))


async def test_a_failed_cold_load_rebuilds_the_word_index_over_what_it_stored(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A load that fails after words were indexed as it went: the word index is rebuilt from the
    rows stored (not the steps' part of them, nor twice)."""
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 3)
    monkeypatch.setattr(runner, "BATCH", 4)
    slow_parse(monkeypatch)
    seen = words_at_each_batch(monkeypatch)
    original = VaultIndexer._write_batch

    def failing(indexer: VaultIndexer, conn: Any, **kwargs: Any) -> Any:
        if len(seen) == 6:
            raise OSError("disk full")
        return original(indexer, conn, **kwargs)

    monkeypatch.setattr(VaultIndexer, "_write_batch", failing)
    async with started(make_vault(NOTES), index={"parse_workers": 0}) as vg:
        indexer = runner.indexer_of(next(iter(vg.app.vaults.values())))
        assert indexer is not None
        await indexer.wait_ready()
        assert indexer.state == "failed"
        assert any(words > 0 for _stored, words in seen)
        db = vg.app.services.db
        await db.run_write(lambda c: c.execute("INSERT INTO fts_words(fts_words, rank) VALUES ('integrity-check', 1)"))
        stored = (await db.fetchone("SELECT count(*) FROM note_text"))[0]
        assert 0 < stored < len(NOTES)
        assert (await db.fetchone("SELECT count(*) FROM fts_words_docsize"))[0] == stored
        assert await _autocheckpoint(vg) == 1000


async def _autocheckpoint(vg: Harness) -> int:
    return int(await vg.app.services.db.run_write(lambda c: c.execute("PRAGMA wal_autocheckpoint").fetchone()[0]))


async def test_the_load_s_wal_is_checkpointed_after_ready_beside_the_writer(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 3)
    monkeypatch.setattr(runner, "BATCH", 4)
    original = reconcile.checkpoint_after_load
    at_start: list[tuple[bool, int]] = []

    async def spy(db: Any) -> None:
        ready = indexer.ready
        pages = await db.run_write(lambda c: c.execute("PRAGMA wal_autocheckpoint").fetchone()[0])
        at_start.append((ready, int(pages)))
        await original(db)

    monkeypatch.setattr(reconcile, "checkpoint_after_load", spy)
    async with started(make_vault(NOTES), index={"parse_workers": 0}) as vg:
        found = runner.indexer_of(next(iter(vg.app.vaults.values())))
        assert found is not None
        indexer = found
        await vg.indexed()
        for task in list(indexer._side_tasks):
            await task
        await settled(vg)
        # Started once the index was ready, the commit that ended the load having left the WAL as
        # it was (auto-checkpoints still off); then they are back, and nothing is left to copy.
        assert at_start == [(True, 0)]
        assert await _autocheckpoint(vg) == 1000
        # A PASSIVE checkpoint leaves the frames a background reader's snapshot still needs
        # (the query warm-up after ready): asked again once it has read, nothing is left.
        for _ in range(3000):  # up to 60 s: the warm-up reads longer on a loaded machine
            busy, frames, copied = await vg.app.services.db.run_read(
                lambda c: c.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            )
            if frames == copied:
                break
            await asyncio.sleep(0.02)
        assert busy == 0 and frames == copied
