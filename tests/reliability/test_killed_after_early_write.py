"""A server killed (SIGKILL) in the middle of its first index, after a write through vaultgate was
applied between the load's batches (`service/indexer/early.py`) or inside that write's own
transaction, leaves a state the next start completes: nothing deferred is left, the word index
matches `note_text` exactly (FTS5's integrity check), the written notes are found by their words,
their alias and their links, the old words of a rewritten note are gone, and the notes the
killed load never stored are in, their links to the new note resolved (every note of the vault
links `[[Fresh]]`, `tests/first_index_gate.py`).

`python -m tests.reliability.test_killed_after_early_write VAULT MARKER MODE` is the process that
dies: it indexes VAULT in bulk-load mode (`tests/first_index_gate.py`'s vault, batches of 5,
held after the parse of the fourth batch), creates `Fresh` and rewrites `N00` through the
dispatch chain, then ("applied") writes MARKER once both are applied and waits, or ("in-write")
holds the early write's transaction open in the writer's thread and writes MARKER there.
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

import pytest

from service.indexer.bulk import WORD_TRIGGERS
from service.settings import load_settings
from tests.conftest import Harness, started
from tests.first_index_gate import BATCH, NOTES, vault_files
from tests.killed import kill_when_held


async def rewrite(vg: Harness, path: str, content: str) -> None:
    etag = (await vg.ok("read_note", path=path))["etag"]
    await vg.ok("write_note", path=path, content=content, mode="overwrite", expected_etag=etag)


FRESH = "---\naliases: [Freshly Made]\n---\n# Fresh\n\nzyxquux links to [[Target]]\n"


@pytest.mark.parametrize("mode", ["applied", "in-write"])
async def test_a_first_index_killed_after_an_early_write_is_complete_after_the_next_start(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str
) -> None:
    root = make_vault(vault_files())
    marker = tmp_path / "held"
    await kill_when_held("tests.reliability.test_killed_after_early_write", root, marker, mode)
    with closing(sqlite3.connect(load_settings(root).cache_dir() / "cache.db")) as conn:  # what it left
        left = {str(r[0]) for r in conn.execute("SELECT name FROM deferred_indexes")}
        names = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master")}
        stored = {str(r[0]) for r in conn.execute("SELECT path FROM notes")}
    assert set(WORD_TRIGGERS) <= left and not set(WORD_TRIGGERS) & names  # still deferred
    assert 0 < len(stored) < NOTES and ("Fresh.md" in stored) is (mode == "applied")

    async with started(root) as vg:
        await vg.indexed()
        db = vg.app.services.db
        assert (await db.fetchone("SELECT count(*) FROM deferred_indexes"))[0] == 0
        await db.run_write(lambda c: c.execute("INSERT INTO fts_words(fts_words, rank) VALUES ('integrity-check', 1)"))
        assert list(await db.fetchall("SELECT target_raw FROM links WHERE target_path IS NULL")) == []
        assert (await vg.ok("index_status"))["notes"] == NOTES + 2

        async def found(query: str) -> list[str]:
            return sorted(item["path"] for item in (await vg.ok("search_text", query=query))["items"])

        assert await found("zyxquux") == ["Fresh.md"]
        rewritten = mode == "applied"  # in-write: killed in the first write, N00 never rewritten
        assert await found("qwvbnm") == (["Notes/N00.md"] if rewritten else [])
        assert await found("tok00x") == ([] if rewritten else ["Notes/N00.md"])
        for i in range(1, NOTES):
            assert await found(f"tok{i:02d}x") == [f"Notes/N{i:02d}.md"]
        assert (await vg.ok("read_note", path="Freshly Made"))["path"] == "Fresh.md"
        back = sorted({item["path"] for item in (await vg.ok("get_backlinks", path="Fresh"))["items"]})
        linking = [f"Notes/N{i:02d}.md" for i in range(NOTES)]  # every note links [[Fresh]]; N00's new text not
        assert back == (linking[1:] if rewritten else linking)
        target = {item["path"] for item in (await vg.ok("get_backlinks", path="Target"))["items"]}
        assert target == {"Fresh.md"}


def _hold_parse(at: int) -> None:
    """The parse of batch `at` (from 0) never returns: the load waits there, between batches."""
    from service.indexer import parsepool

    parse = parsepool.Parser.batch
    calls = 0

    async def batch(parser: parsepool.Parser, *args: Any) -> parsepool.Batch:
        nonlocal calls
        n, calls = calls, calls + 1
        done = await parse(parser, *args)
        if n == at:
            await asyncio.Event().wait()
        return done

    parsepool.Parser.batch = batch  # type: ignore[method-assign]


def _hold_early_write(marker: Path) -> None:
    """The first early write's transaction, its rows written, is held open in the writer's thread."""
    from service.indexer.words import WordCatchUp

    around = WordCatchUp.around

    def held(words: WordCatchUp, conn: Any, write: Any) -> Any:
        out = around(words, conn, write)
        marker.write_text("held\n")
        threading.Event().wait()  # forever: the test kills this process
        return out

    WordCatchUp.around = held  # type: ignore[method-assign]


async def _main(root: Path, marker: Path, mode: str) -> None:
    from service.app import VaultgateApp
    from service.indexer import runner

    runner.BULK_THRESHOLD, runner.BATCH = 10, BATCH
    _hold_parse(3)
    if mode == "in-write":
        _hold_early_write(marker)
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False, "parse_workers": 0})
    app = VaultgateApp(settings)
    async with app.running():
        vg = Harness(app, root)
        indexer = vg.indexer()
        await indexer.wait_for(lambda: indexer.done >= 3 * BATCH, 60)  # the batches before the held one
        await vg.ok("create_note", path="Fresh", content=FRESH)  # in-process: waits for its index update
        await rewrite(vg, "Notes/N00", "# N00\n\nqwvbnm now\n")
        assert not indexer.ready
        await asyncio.to_thread(marker.write_text, "held\n")
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(_main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))
