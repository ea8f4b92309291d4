"""A server killed (SIGKILL) in the middle of its first index leaves a state the next start
recovers from: the query indexes and the full-text word index a bulk load deferred are built,
and every note is listed, found by a word only it holds, and linked as on disk."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from service.indexer.bulk import DEFERRABLE_INDEXES, WORD_TRIGGERS
from service.settings import load_settings
from tests.conftest import started
from tests.killed import kill_when_held

NOTES = {
    f"N/n{i:02}.md": f"# Note {i}\n\nword{i}x is here. #topic{i % 3}\n\nSee [[n{(i + 1) % 20:02}]].\n- [ ] t{i}\n"
    for i in range(20)
}


async def test_a_cold_index_killed_midway_is_complete_after_the_next_start(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault(NOTES)
    marker = tmp_path / "held"
    await kill_when_held("tests.index_killed", root, marker)
    with closing(sqlite3.connect(load_settings(root).cache_dir() / "cache.db")) as conn:  # what it left
        left = {str(r[0]) for r in conn.execute("SELECT name FROM deferred_indexes")}
        stored = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    assert set(WORD_TRIGGERS) <= left and 0 < stored < len(NOTES)
    await complete_after_restart(root)


async def complete_after_restart(root: Path) -> None:
    """The next start leaves nothing deferred, and every note of NOTES is listed, found by the
    word only it holds, linked and tagged as on disk."""
    async with started(root) as vg:
        await vg.indexed()
        db = vg.app.services.db
        assert (await db.fetchone("SELECT count(*) FROM deferred_indexes"))[0] == 0
        names = {str(r[0]) for r in await db.fetchall("SELECT name FROM sqlite_master")}
        assert set(DEFERRABLE_INDEXES) | set(WORD_TRIGGERS) <= names
        listed = sorted(i["path"] for i in (await vg.ok("list_notes", limit=100))["items"])
        assert listed == sorted(NOTES)
        for i in range(20):
            found = await vg.ok("search_text", query=f"word{i}x")
            assert [h["path"] for h in found["items"]] == [f"N/n{i:02}.md"]
        back = await vg.ok("get_backlinks", path="N/n05")
        assert [b["path"] for b in back["items"]] == ["N/n04.md"]
        tagged = await vg.ok("search_tags", tags=["topic1"], match="any")
        assert sorted(h["path"] for h in tagged["items"]) == [f"N/n{i:02}.md" for i in range(1, 20, 3)]
