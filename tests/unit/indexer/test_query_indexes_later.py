"""A cold load's query indexes are built after the index says ready, one per writer transaction,
the by-note ones first, and the trigram rebuild only after the last one. Until they are built
every query answers as it does with them (SQLite scans instead), and writes — a note that takes
over unresolved links, a note whose old rows are replaced — land as they do with them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.indexer import bulk, runner
from service.indexer.bulk import DEFERRABLE_INDEXES, WORD_TRIGGERS
from tests.conftest import Harness, started

VAULT: dict[str, str | bytes] = {
    f"Notes/n{i:02}.md": (
        f"---\ntags: [topic{i % 3}]\nstatus: {'active' if i % 2 else 'done'}\n---\n# Note {i}\n\n"
        f"## Part\n\nword{i}x links [[Hub]] and [[Missing{i % 4}]].\n\n- [ ] task {i} 📅 2026-0{1 + i % 9}-01\n"
        f"- [x] done {i}\n"
    )
    for i in range(14)
}
VAULT["Hub.md"] = "# Hub\n\nSee [[n03]] and [[Missing1]]. #hub\n"
EDITED = "# Edited\n\n[[Missing2]] #topic2\n- [ ] new task\n"


async def _indexes(vg: Harness) -> set[str]:
    rows = await vg.app.services.db.fetchall("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger')")
    return {str(r[0]) for r in rows} & {*DEFERRABLE_INDEXES, *WORD_TRIGGERS}


async def _answers(vg: Harness) -> list[Any]:
    def paths(out: dict[str, Any]) -> list[str]:
        return sorted(str(i.get("path") or i.get("source") or i) for i in out["items"])

    return [
        paths(await vg.ok("search_tags", tags=["topic1"], match="any")),
        paths(await vg.ok("search_tags", tags=["hub", "topic2"], match="any")),
        paths(await vg.ok("get_backlinks", path="Hub")),
        paths(await vg.ok("get_backlinks", path="Missing2")),
        paths(await vg.ok("get_backlinks", path="Notes/n03")),
        paths(await vg.ok("get_outlinks", path="Notes/n05")),
        sorted(str(t) for t in (await vg.ok("list_tasks", limit=100))["items"]),
        sorted(str(e) for e in (await vg.ok("find_broken_links"))["items"]),
        paths(await vg.ok("search_text", query="word7x")),
        paths(await vg.ok("search_text", query="Edited")),
    ]


async def test_query_indexes_are_built_after_ready_and_answers_are_the_same_meanwhile(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 3)
    monkeypatch.setattr(runner, "BATCH", 4)
    gate = asyncio.Event()
    original_run = bulk.QueryIndexes._run

    async def held(self: bulk.QueryIndexes) -> None:  # the build waits until the test lets it go
        await gate.wait()
        await original_run(self)

    monkeypatch.setattr(bulk.QueryIndexes, "_run", held)
    built: list[str] = []
    original_next = bulk.build_next_index

    def spy(conn: Any) -> str | None:
        name = original_next(conn)
        if name is not None:
            built.append(name)
        return name

    monkeypatch.setattr(bulk, "build_next_index", spy)
    async with started(make_vault(VAULT), index={"parse_workers": 0}) as vg:
        await vg.indexed()
        ix = vg.indexer()
        db = vg.app.services.db
        # Ready, the word index complete, every query index still to build, the trigram waiting.
        assert ix.state == "ready" and ix.query_indexes.running
        assert await _indexes(vg) == set(WORD_TRIGGERS)
        assert (await db.fetchone("SELECT count(*) FROM deferred_indexes"))[0] == len(DEFERRABLE_INDEXES)
        assert not ix.trigram.running and ix.trigram.runs == 0 and not ix.trigram_ready
        trigram_saw: list[int] = []
        write = ix.trigram.write

        def trigram(conn: Any) -> object:
            trigram_saw.append(conn.execute("SELECT count(*) FROM deferred_indexes").fetchone()[0])
            return write(conn)

        ix.trigram.write = trigram
        # Writes without the indexes: a note that takes over unresolved links (`unresolved.py`
        # reads them without its index), a note whose old rows are replaced by note id.
        await vg.ok("create_note", path="Missing2", content="# Missing two\n\nSee [[Hub]]. #hub\n")
        await vg.ok("append_note", path="Notes/n05.md", content=EDITED)
        await vg.settled()
        without = await _answers(vg)
        assert await _indexes(vg) == set(WORD_TRIGGERS)  # the answers above came without them
        gate.set()
        await ix.query_indexes.settled()
        await ix.trigram.settled()
        assert built == list(DEFERRABLE_INDEXES)  # one at a time, the by-note ones first
        assert await _indexes(vg) == {*DEFERRABLE_INDEXES, *WORD_TRIGGERS}
        assert (await db.fetchone("SELECT count(*) FROM deferred_indexes"))[0] == 0
        assert trigram_saw == [0] and ix.trigram_ready  # the trigram rebuild came after them
        await vg.ok("create_note", path="Other/unrelated", content="# Unrelated\n")  # no cached answer
        await vg.settled()
        assert await _answers(vg) == without
        # the new note took the links to it over
        assert without[3] == ["Notes/n02.md", "Notes/n05.md", "Notes/n06.md", "Notes/n10.md"]
        assert without[9] == ["Notes/n05.md"]
