"""A bulk load into an empty index drops the derived tables' query indexes and builds them once
after the load (once the index is ready: test_query_indexes_later.py), and builds the full-text
word index in one pass at the end instead of row by row;
they come back after a failed load at once and, when a process died mid-load, on the next
start. A bulk load over existing rows (a full reindex) keeps them: deleting a note's old rows
needs them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.indexer import runner
from service.indexer.bulk import WORD_TRIGGERS
from service.indexer.runner import DEFERRABLE_INDEXES, VaultIndexer
from service.storage import db as dbmod
from tests.conftest import Harness, started
from tests.search_vault import SEARCH_VAULT

GARDEN = ["Journal/2026-01-05.md", "Projects/Beta.md", "Projects/Gamma.md"]  # "gardening" stems to "garden"


async def _indexes(vg: Harness) -> set[str]:
    rows = await vg.app.services.db.fetchall("SELECT name FROM sqlite_master WHERE type = 'index'")
    return {str(r[0]) for r in rows} & set(DEFERRABLE_INDEXES)


async def _waiting(vg: Harness) -> int:
    return int((await vg.app.services.db.fetchone("SELECT count(*) FROM deferred_indexes"))[0])


async def _word_triggers(vg: Harness) -> set[str]:
    rows = await vg.app.services.db.fetchall("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    return {str(r[0]) for r in rows} & set(WORD_TRIGGERS)


async def _found(vg: Harness, query: str) -> list[str]:
    return sorted(i["path"] for i in (await vg.ok("search_text", query=query))["items"])


class IndexesDuringWrites:
    """Records which deferrable indexes (and word-index triggers) exist while each batch is written."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seen: list[set[str]] = []
        self.triggers: list[set[str]] = []
        original = VaultIndexer._write_batch

        def spy(indexer: VaultIndexer, conn: Any, **kwargs: Any) -> None:
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
            self.seen.append(names & set(DEFERRABLE_INDEXES))
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
            self.triggers.append(names & set(WORD_TRIGGERS))
            original(indexer, conn, **kwargs)

        monkeypatch.setattr(VaultIndexer, "_write_batch", spy)


async def test_a_cold_bulk_load_builds_the_query_indexes_once_at_the_end(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 3)
    monkeypatch.setattr(runner, "BATCH", 4)
    during = IndexesDuringWrites(monkeypatch)
    async with started(make_vault(SEARCH_VAULT), index={"parse_workers": 0}) as vg:
        await vg.indexed()
        await vg.indexer().query_indexes.settled()  # built after ready (test_query_indexes_later.py)
        assert during.seen and all(not names for names in during.seen)
        assert await _indexes(vg) == set(DEFERRABLE_INDEXES) and await _waiting(vg) == 0
        plan = await vg.app.services.db.fetchall(
            "EXPLAIN QUERY PLAN SELECT note_id FROM note_tags WHERE vault_id = ? AND tag_lower = ?", ("main", "x")
        )
        assert any("note_tags_by_tag" in str(row[-1]) for row in plan)
        tags = await vg.ok("search_tags", tags=["project"], match="any")
        assert tags["items"]
        # The word index was built once at the end, from every note, and follows edits again.
        assert during.triggers and all(not names for names in during.triggers)
        assert await _word_triggers(vg) == set(WORD_TRIGGERS)
        assert await _found(vg, "gardening") == GARDEN
        await vg.ok("create_note", path="Later", content="# Later\n\nMore gardening.\n")
        assert await _found(vg, "gardening") == sorted([*GARDEN, "Later.md"])
        # A full reindex over existing rows keeps every index (old rows are deleted by note id).
        during.seen.clear()
        during.triggers.clear()
        await vg.indexer().reconcile(full=True)
        assert during.seen and all(names == set(DEFERRABLE_INDEXES) for names in during.seen)
        assert all(names == set(WORD_TRIGGERS) for names in during.triggers)
        assert await _indexes(vg) == set(DEFERRABLE_INDEXES)
        assert await _found(vg, "gardening") == sorted([*GARDEN, "Later.md"])


async def test_a_failed_bulk_load_gets_its_indexes_back_at_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 3)
    monkeypatch.setattr(runner, "BATCH", 4)
    original = VaultIndexer._write_batch
    calls = 0

    def failing(indexer: VaultIndexer, conn: Any, **kwargs: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise OSError("disk full")
        original(indexer, conn, **kwargs)

    monkeypatch.setattr(VaultIndexer, "_write_batch", failing)
    async with started(make_vault(SEARCH_VAULT), index={"parse_workers": 0}) as vg:
        await vg.indexer().wait_ready()
        assert vg.indexer().state == "failed" and "disk full" in (vg.indexer().error or "")
        assert await _indexes(vg) == set(DEFERRABLE_INDEXES) and await _waiting(vg) == 0
        # the word index is back too, over what the load stored before it failed
        assert await _word_triggers(vg) == set(WORD_TRIGGERS)
        stored = await vg.app.services.db.fetchone("SELECT count(*) FROM note_text")
        words = await vg.app.services.db.fetchone(
            "SELECT count(*) FROM fts_words WHERE fts_words MATCH 'the OR a OR and'"
        )
        assert stored[0] > 0 and words[0] > 0
        # the writer's page cache is back at its size between bulk loads, too
        cache = await vg.app.services.db.run_write(lambda c: c.execute("PRAGMA cache_size").fetchone()[0])
        assert cache == -dbmod.CACHE_KIB


async def test_indexes_a_dead_process_left_deferred_are_built_on_the_next_start(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(SEARCH_VAULT)
    async with started(root) as vg:
        await vg.indexed()

        def die_mid_load(conn: Any) -> None:  # what `_bulk_mode` leaves when the process is killed
            for name in ("links_by_target", "tasks_by_note"):
                sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
                conn.execute("INSERT INTO deferred_indexes(name, sql) VALUES (?, ?)", (name, sql))
                conn.execute(f"DROP INDEX {name}")

        await vg.app.services.db.run_write(die_mid_load)
        assert await _indexes(vg) == set(DEFERRABLE_INDEXES) - {"links_by_target", "tasks_by_note"}
    async with started(root) as vg:
        await vg.indexed()
        assert await _indexes(vg) == set(DEFERRABLE_INDEXES) and await _waiting(vg) == 0
        back = await vg.ok("get_backlinks", path="Projects/Alpha")
        assert back["target"] == "Projects/Alpha.md"


async def test_a_word_index_a_dead_process_left_deferred_is_rebuilt_on_the_next_start(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(SEARCH_VAULT)
    async with started(root) as vg:
        await vg.indexed()

        def die_mid_load(conn: Any) -> None:  # a cold load killed after its first batches
            for name in WORD_TRIGGERS:
                sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
                conn.execute("INSERT INTO deferred_indexes(name, sql) VALUES (?, ?)", (name, sql))
                conn.execute(f"DROP TRIGGER {name}")
            conn.execute("INSERT INTO fts_words(fts_words) VALUES ('delete-all')")  # nothing indexed yet
            conn.execute(
                "UPDATE note_text SET body = body || ' zeppelin' WHERE note_id = (SELECT min(note_id) FROM note_text)"
            )

        await vg.app.services.db.run_write(die_mid_load)
        assert await _found(vg, "gardening") == []
    async with started(root) as vg:
        await vg.indexed()
        assert await _word_triggers(vg) == set(WORD_TRIGGERS) and await _waiting(vg) == 0
        assert await _found(vg, "gardening") == GARDEN
        assert len(await _found(vg, "zeppelin")) == 1  # what the rows held, not what the old index had
