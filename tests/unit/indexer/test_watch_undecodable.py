"""A folder whose name is not UTF-8 does not stop the file watcher (issue 36 item 5).

`watchfiles` fails a recursive watch above such a folder as soon as it is set up, and for good;
the watcher used to start again, re-read the whole vault, fail again, and see every external
edit only through those re-readings (seconds late). It now watches around such folders
(`watch_plan.py`): after at most one start again, edits anywhere else are seen by the watch.

Every wait is on the indexer's condition, bounded."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

from service.indexer import watch
from service.indexer.runner import VaultIndexer
from service.indexer.watch_plan import plan
from tests.conftest import Harness, started

WITHIN = 60.0


def _bad(root: Path, rel: bytes) -> None:
    full = os.path.join(os.fsencode(root), rel)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as fh:
        fh.write(b"# R\n\nresumeword\n")


def _moved_past(indexer: VaultIndexer, generation: int) -> bool:
    return indexer.generation > generation


async def _until_indexed(vg: Harness, path: str) -> None:
    indexer = vg.indexer("main")

    async def wait() -> None:
        while True:
            generation = indexer.generation
            if await vg.app.services.db.fetchone("SELECT 1 FROM notes WHERE path = ?", (path,)):
                return
            await indexer.wait_for(partial(_moved_past, indexer, generation), WITHIN)

    await asyncio.wait_for(wait(), WITHIN)


def test_the_plan_watches_around_every_folder_whose_name_is_not_utf8(tmp_path: Path) -> None:
    for folder in ("Top", "A/Clean", "A/B/Deep", "A/B/Deeper/x", "Other"):
        (tmp_path / folder).mkdir(parents=True)
    _bad(tmp_path, b"Caf\xe9/r\xe9sum\xe9.md")
    _bad(tmp_path, b"A/B/Caf\xe9/Sub/n.md")
    laid = plan(str(tmp_path))
    root = str(tmp_path)
    assert laid.alone == (root, f"{root}/A", f"{root}/A/B")
    assert laid.recursive == tuple(f"{root}/{rel}" for rel in ("A/B/Deep", "A/B/Deeper", "A/Clean", "Other", "Top"))
    assert laid.skipped == (f"{root}/A/B/Caf\\xe9", f"{root}/Caf\\xe9")


def test_a_vault_without_such_names_is_watched_from_its_root(tmp_path: Path) -> None:
    (tmp_path / "A" / "B").mkdir(parents=True)
    laid = plan(str(tmp_path))
    assert (laid.recursive, laid.alone, laid.skipped) == ((str(tmp_path),), (), ())


async def test_an_external_edit_beside_a_folder_named_not_utf8_is_seen_by_the_watch(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"A.md": "# A\n\nalpha\n", "Sub/B.md": "# B\n\nbeta\n"})
    _bad(root, b"Caf\xe9/r\xe9sum\xe9.md")
    async with started(root) as vg:
        await vg.indexed(WITHIN)
        indexer = vg.indexer("main")
        watcher = indexer._watcher
        assert watcher is not None
        # watchfiles' first watch, from the root, fails on the name; inotify's leaves the folder out
        for _ in range(0 if watch.INOTIFY else int(WITHIN / 0.01)):
            if watcher.restarts:
                break
            await asyncio.sleep(0.01)
        (vg.root / "First.md").write_text("# First\n\nfirstword\n", encoding="utf-8")
        await _until_indexed(vg, "First.md")
        before = watcher.restarts
        for n in range(3):  # each one only the watch can bring in: no re-reading without a restart
            (vg.root / "Sub" / f"Edit{n}.md").write_text(f"# E\n\neditword{n}\n", encoding="utf-8")
            await _until_indexed(vg, f"Sub/Edit{n}.md")
        assert watcher.restarts == before <= (0 if watch.INOTIFY else 1)
        found = await vg.ok("search_text", query="editword2")
        assert [i["path"] for i in found["items"]] == ["Sub/Edit2.md"]
        status = await vg.ok("index_status")
        assert (status["watching"], status["health"]) == (True, "healthy")
