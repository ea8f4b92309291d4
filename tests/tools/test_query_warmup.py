"""The Bases snapshot and Dataview pages: built at the first query (or, with `[search]
prewarm_queries`, in the background once the index is ready), refreshed after changes, and
rebuilt incrementally (unchanged notes keep their records)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Callable
from pathlib import Path

from service.bases.snapshot import Snapshot
from service.indexer.runner import indexer_of
from service.tools.dataview.tools import PAGES
from service.tools.obsidian.bases import _SNAPSHOTS, snapshot_of
from tests.conftest import Harness, started

VAULT = {
    "A.md": "---\nstatus: active\n---\nlinks to [[B]] and [[New]]\n",
    "B.md": "---\nstatus: done\n---\nplain\n",
    "C.md": "---\nstatus: active\n---\nrating:: 3\n",
}
BASE = "filters: 'status == \"active\"'\nviews:\n  - {name: v, order: [file.name, status]}\n"


async def _until(check: Callable[[], bool], within: float = 60.0) -> None:
    """Wait (bounded) for a condition the background work makes true."""
    loop = asyncio.get_running_loop()
    end = loop.time() + within
    while not check():
        assert loop.time() < end, "the background refresh did not happen"
        await asyncio.sleep(0.02)


def _warm(vg: Harness) -> bool:
    vault = next(iter(vg.app.vaults.values()))
    indexer = indexer_of(vault)
    assert indexer is not None
    return vg.app.warmup.built.get(vault.id) == indexer.generation


async def test_images_are_built_after_the_index_is_ready_and_refreshed_after_a_write(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT), search={"prewarm_queries": True}) as vg:
        vg.app.warmup.quiet_s = 0.05
        await vg.indexed()
        await _until(lambda: _warm(vg))
        vault = next(iter(vg.app.vaults.values()))
        indexer = indexer_of(vault)
        assert indexer is not None
        first = _SNAPSHOTS.get(indexer, indexer.generation)  # built without any query
        assert first is not None and {r.path for r in first.records} == {"A.md", "B.md", "C.md"}
        assert vault.id in PAGES._sets[vg.app.services.db]  # the Dataview pages too
        before = indexer.generation
        await vg.ok("set_properties", path="B.md", properties={"status": "active"})
        await _until(lambda: indexer.generation != before and _warm(vg))
        refreshed = _SNAPSHOTS.get(indexer, indexer.generation)
        assert refreshed is not None and refreshed is not first
        assert refreshed.by_path["A.md"] is first.by_path["A.md"]  # unchanged: the same record
        assert refreshed.by_path["B.md"].props["status"] == "active"
        out = await vg.ok("query_base", yaml=BASE)
        assert [r["path"] for r in out["rows"]] == ["A.md", "B.md", "C.md"]
        dql = await vg.ok("search_dql", query='LIST WHERE status = "active"')
        assert [r["path"] for r in dql["rows"]] == ["A.md", "B.md", "C.md"]


async def test_a_new_note_rereads_links_and_a_deleted_one_disappears(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        vault = next(iter(vg.app.vaults.values()))
        db = vg.app.services.db
        old: Snapshot = await snapshot_of(vault, db)
        a_links = {link.target: link.path for link in old.by_path["A.md"].links}
        assert a_links == {"B": "B.md", "New": None}  # dangling for now
        await vg.ok("create_note", path="New.md", content="---\nstatus: active\n---\n")
        new = await snapshot_of(vault, db)
        assert new.by_path["A.md"] is not old.by_path["A.md"]  # names changed: links read again
        assert {link.target: link.path for link in new.by_path["A.md"].links} == {"B": "B.md", "New": "New.md"}
        assert new.by_path["C.md"].props == old.by_path["C.md"].props
        await vg.ok("delete_note", path="C.md")
        gone = await snapshot_of(vault, db)
        assert "C.md" not in gone.by_path and "New.md" in gone.by_path
        out = await vg.ok("query_base", yaml=BASE)
        assert [r["path"] for r in out["rows"]] == ["A.md", "New.md"]
        dql = await vg.ok("search_dql", query='LIST WHERE status = "active"')
        assert [r["path"] for r in dql["rows"]] == ["A.md", "New.md"]


async def test_without_prewarm_no_image_is_held_until_a_query_builds_it_then_it_is_kept_current(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT)) as vg:
        vg.app.warmup.quiet_s = 0.05
        await vg.indexed()
        vault = next(iter(vg.app.vaults.values()))
        indexer = indexer_of(vault)
        assert indexer is not None
        db = vg.app.services.db
        await vg.ok("set_properties", path="C.md", properties={"rating": 4})  # a change to follow
        await _until(lambda: _warm(vg))  # the warm-up has looked at the newest generation ...
        assert _SNAPSHOTS.latest(indexer) is None  # ... and built nothing nobody asked for
        assert vault.id not in PAGES._sets.get(db, {})
        assert [r["path"] for r in (await vg.ok("query_base", yaml=BASE))["rows"]] == ["A.md", "C.md"]
        assert [r["path"] for r in (await vg.ok("search_dql", query='LIST WHERE status = "active"'))["rows"]] == [
            "A.md",
            "C.md",
        ]
        before = indexer.generation
        await vg.ok("set_properties", path="B.md", properties={"status": "active"})
        await _until(lambda: indexer.generation != before and _warm(vg))
        assert _SNAPSHOTS.get(indexer, indexer.generation) is not None  # refreshed without a query
        assert PAGES._sets[db][vault.id][0] == ("generation", indexer.generation)


async def test_a_refresh_lets_the_previous_dataview_page_set_go(make_vault: Callable[..., Path]) -> None:
    """Pages kept across a rebuild must not hold the set they were built with: each edit would
    otherwise keep one more old set (and the old version of the edited note) alive."""
    async with started(make_vault({**VAULT, "T.md": "- [ ] a task [[B]]\n- item [[C]]\n"})) as vg:
        await vg.indexed()
        db = vg.app.services.db
        vault = next(iter(vg.app.vaults.values()))
        await vg.ok("search_dql", query="TASK")
        first = weakref.ref(PAGES._sets[db][vault.id][1].pages)
        for rating in (5, 6):
            await vg.ok("set_properties", path="C.md", properties={"rating": rating})
            tasks = await vg.ok("search_dql", query="TASK")
            assert [r["path"] for r in tasks["rows"]] == ["T.md"]
        gc.collect()
        assert first() is None
        items = await vg.ok("search_dql", query='LIST FROM "T" FLATTEN file.lists AS l WHERE l.outlinks')
        assert items["rows"]


async def test_images_no_query_reads_are_dropped_and_the_next_query_builds_them_again(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT), search={"query_images_idle_s": 0.2}) as vg:
        await vg.indexed()
        vault = next(iter(vg.app.vaults.values()))
        indexer = indexer_of(vault)
        assert indexer is not None
        db = vg.app.services.db
        rows = [r["path"] for r in (await vg.ok("query_base", yaml=BASE))["rows"]]
        dql = [r["path"] for r in (await vg.ok("search_dql", query='LIST WHERE status = "active"'))["rows"]]
        assert rows == dql == ["A.md", "C.md"]
        await _until(lambda: _SNAPSHOTS.latest(indexer) is None and vault.id not in PAGES._sets.get(db, {}))
        assert vg.app.warmup.released >= 2  # (a finished test's vault may still be in the weak caches)
        assert [r["path"] for r in (await vg.ok("query_base", yaml=BASE))["rows"]] == rows
        assert [r["path"] for r in (await vg.ok("search_dql", query='LIST WHERE status = "active"'))["rows"]] == dql
        assert _SNAPSHOTS.latest(indexer) is not None and vault.id in PAGES._sets[db]


async def test_images_are_kept_while_queries_read_them(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:  # the default: dropped after 600 s idle
        await vg.indexed()
        vault = next(iter(vg.app.vaults.values()))
        indexer = indexer_of(vault)
        assert indexer is not None
        await vg.ok("query_base", yaml=BASE)
        await vg.ok("search_dql", query='LIST WHERE status = "active"')
        assert vg.app.warmup.idle_s == 600
        assert _SNAPSHOTS.release_idle(60) == 0 and PAGES.release_idle(60) == 0
        assert _SNAPSHOTS.latest(indexer) is not None and vault.id in PAGES._sets[vg.app.services.db]
