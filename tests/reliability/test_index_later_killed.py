"""A server killed (SIGKILL) while it builds a cold load's query indexes after `ready`
(`bulk.QueryIndexes`) leaves a state the next start completes: the index built and committed
stays, the one in the killed transaction and those after it are still listed in
`deferred_indexes` and are built before the next reconcile writes; the word index and every note
were complete already.

`python -m tests.reliability.test_index_later_killed VAULT MARKER` is the process that dies: it
indexes VAULT in bulk-load mode (from 3 notes, batches of 4), lets the first query index commit,
then holds the writer's transaction of the second one open, writes MARKER and waits.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import threading
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from service.indexer.bulk import DEFERRABLE_INDEXES, WORD_TRIGGERS
from service.settings import load_settings
from tests.killed import kill_when_held
from tests.reliability.test_index_killed import NOTES, complete_after_restart


async def test_a_server_killed_while_it_builds_the_query_indexes_after_ready_is_completed_on_the_next_start(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault(NOTES)
    marker = tmp_path / "held"
    await kill_when_held("tests.reliability.test_index_later_killed", root, marker)
    with closing(sqlite3.connect(load_settings(root).cache_dir() / "cache.db")) as conn:  # what it left
        left = {str(r[0]) for r in conn.execute("SELECT name FROM deferred_indexes")}
        names = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master")}
        stored = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    first, *rest = DEFERRABLE_INDEXES
    assert left == set(rest) and first in names and not set(rest) & names
    assert set(WORD_TRIGGERS) <= names and stored == len(NOTES)
    await complete_after_restart(root)


def _hold_second_index(marker: Path) -> None:
    from service.indexer import bulk

    original = bulk.build_next_index
    calls = 0

    def held(conn: Any) -> str | None:
        nonlocal calls
        calls += 1
        name = original(conn)
        if calls == 2:  # the first index committed, the second built and not committed
            marker.write_text("held\n")
            threading.Event().wait()  # the writer's thread, forever: the test kills this process
        return name

    bulk.build_next_index = held


async def _main(root: Path, marker: Path) -> None:
    from service.app import VaultgateApp
    from service.indexer import runner

    runner.BULK_THRESHOLD = 3
    runner.BATCH = 4
    _hold_second_index(marker)
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False, "parse_workers": 0})
    async with VaultgateApp(settings).running():
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(_main(Path(sys.argv[1]), Path(sys.argv[2])))
