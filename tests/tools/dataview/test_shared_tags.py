"""A vault's Dataview pages and Bases snapshot hold one tag tuple per note between them
(`service.query_images`): whichever image is built second keeps the other's tuple where it is
equal, never a stale one (an edited note's tags are its own), and an image dropped as idle is
not kept alive by the other."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.bases.snapshot import Snapshot
from service.dataview.pages import PageSet
from service.indexer.runner import indexer_of
from service.tools.dataview.tools import PAGES, release_idle
from service.tools.obsidian.bases import snapshot_of
from tests.conftest import started

NOTES = 12
TAGS_VIEW = "views:\n  - type: table\n    order: [file.name, file.tags]\n"


def _vault() -> dict[str, str]:
    files = {
        f"N{n}.md": f"---\ntags: [t{n % 3}, area/x{n % 2}]\n---\n# N{n}\n\nbody #inline{n % 4}\n" for n in range(NOTES)
    }
    files["Plain.md"] = "no tags here\n"
    files["Board.canvas"] = '{"nodes": [], "edges": []}'
    return files


async def _images(h: Any) -> tuple[PageSet, Snapshot]:
    [vault] = h.app.vaults.values()
    db = h.app.services.db
    indexer = indexer_of(vault)
    assert indexer is not None
    version = indexer.generation
    dv = await db.run_read(lambda conn: PAGES.get(db, conn, vault.id, version))
    return dv, await snapshot_of(vault, db)


async def _dql_tags(h: Any) -> list[Any]:
    out = await h.ok("search_dql", query="TABLE file.etags, file.tags SORT file.name", limit=100)
    assert out["total"] == NOTES + 1
    return list(out["rows"])


async def _base_tags(h: Any) -> dict[str, Any]:
    out = await h.ok("query_base", yaml=TAGS_VIEW, limit=100)
    values = [r["values"] for r in out["rows"]]
    return {v["file.name"]["value"]: sorted(str(t["value"]) for t in v["file.tags"]["value"]) for v in values}


def _assert_shared(dv: PageSet, snap: Snapshot) -> None:
    for path, page in dv.pages.items():
        rec = snap.by_path[path]
        assert page.tag_list == tuple(rec.tags)
        assert page.tag_list is rec.tags, path  # one tuple for both images


async def test_the_second_image_built_holds_the_first_ones_tag_tuples(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(_vault())) as h:
        await h.indexed()
        dql_before = await _dql_tags(h)  # Dataview first
        base_before = await _base_tags(h)  # then Bases: it borrows
        dv, snap = await _images(h)
        _assert_shared(dv, snap)
        assert {t for p in dv.pages.values() for t in p.tag_list} >= {"t0", "area/x1", "inline3"}
        assert dv.pages["Plain.md"].tag_list == ()
        assert base_before["N4.md"] == ["area/x0", "inline0", "t1"] and base_before["Board.canvas"] == []

        # An edit: Bases rebuilds first, beside pages that still hold the note's old tuple.
        await h.confirmed("write_note", path="N4.md", content="---\ntags: [fresh]\n---\nnew #other\n", mode="overwrite")
        await h.settled()
        base_after = await _base_tags(h)
        assert base_after["N4.md"] == ["fresh", "other"]
        assert {k: v for k, v in base_after.items() if k != "N4.md"} == {
            k: v for k, v in base_before.items() if k != "N4.md"
        }
        dql_after = await _dql_tags(h)  # the pages rebuilt: they take the snapshot's new tuple
        assert dql_after != dql_before
        dv, snap = await _images(h)
        assert sorted(dv.pages["N4.md"].tag_list) == ["fresh", "other"]
        _assert_shared(dv, snap)


async def test_bases_first_then_pages_and_a_dropped_image_is_not_kept_alive(make_vault: Callable[..., Path]) -> None:
    from service.query_images import peer_tags

    async with started(make_vault(_vault())) as h:
        await h.indexed()
        [vault] = h.app.vaults.values()
        base = await _base_tags(h)  # Bases first
        dql = await _dql_tags(h)  # then Dataview: it borrows
        dv, snap = await _images(h)
        _assert_shared(dv, snap)
        assert peer_tags("bases", vault.id)("N1.md") is snap.by_path["N1.md"].tags
        del dv
        assert release_idle(0) >= 1  # the pages dropped as idle (and any an earlier test left)
        for _ in range(600):  # a reader thread may still be leaving the frame of the last query
            gc.collect()
            if peer_tags("bases", vault.id)("N1.md") is None:
                break
            await asyncio.sleep(0.1)
        assert peer_tags("bases", vault.id)("N1.md") is None  # not held by the registry
        assert await _dql_tags(h) == dql  # built again, from the snapshot's tuples
        dv, snap = await _images(h)
        _assert_shared(dv, snap)
        assert await _base_tags(h) == base


async def test_equal_tag_sets_are_one_tuple_in_each_image_however_the_index_wrote_them(
    make_vault: Callable[..., Path],
) -> None:
    """Each image keys its tuples by the tags themselves, not by the notes' JSON texts (a table of
    texts kept them all alive through the build, and their holes stayed resident after it)."""
    from service.bases.source import load_snapshot
    from service.dataview.pages import load

    files = {"A.md": "---\ntags: [x, y]\n---\na\n", "B.md": "---\ntags: [x, y]\n---\nb\n", "C.md": "c\n"}
    async with started(make_vault(files)) as h:
        await h.indexed()
        [vault] = h.app.vaults.values()
        db = h.app.services.db
        async with db.transaction() as conn:  # the same tags, written otherwise
            await conn.execute("UPDATE notes SET tags = ? WHERE path = 'B.md'", ('[ "x",  "y" ]',))
        dv = await db.run_read(lambda conn: load(conn, vault.id).pages)
        snap = await db.run_read(lambda conn: load_snapshot(conn, vault.id, str(vault.paths.root), [], -1))
        a, b = dv.pages["A.md"].tag_list, dv.pages["B.md"].tag_list
        assert a == ("x", "y") and a is b and dv.pages["C.md"].tag_list == ()
        ra, rb = snap.by_path["A.md"].tags, snap.by_path["B.md"].tags
        assert ra == ("x", "y") and ra is rb
