"""The Dataview page image stays small and exact: per page it keeps the typed fields and a few
stat facts; list items, links and the frontmatter as written are read from the index on access
(service/dataview/reads.py), so they follow edits, and the image of a vault of 300 notes with
tasks and links is a few hundred kilobytes (it was about ten times more)."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import FunctionType
from typing import Any

from service.dataview import pages
from service.dataview.items import FileFields, same
from service.dataview.values import Link, stamp, whole_seconds
from service.indexer.runner import indexer_of
from service.tools.dataview import tools
from service.tools.obsidian.bases import snapshot_of
from tests.conftest import started

NOTES = 300


def _vault() -> dict[str, str]:
    files: dict[str, str] = {}
    for n in range(NOTES):
        status = ("active", "done", "draft")[n % 3]
        items = "\n".join(f"- [ ] task {n}-{k} with some words to carry [[Note {(n + k) % NOTES}]]" for k in range(6))
        files[f"Notes/Note {n}.md"] = (
            f"---\nstatus: {status}\npriority: {n % 5}\ntags: [t{n % 7}, area/x{n % 4}]\n"
            f"created: 2024-01-{n % 28 + 1:02d}\nowner: '[[Note {(n * 7) % NOTES}]]'\n---\n"
            f"# Note {n}\n\nrating:: {n % 10}\nSee [[Note {(n + 1) % NOTES}]] and [[Note {(n + 2) % NOTES}]].\n\n"
            f"{items}\n"
        )
    return files


def _slots(page: pages.Page) -> list[Any]:
    return [getattr(page, name) for name in pages.Page.__slots__ if name != "_links"]


async def test_the_page_image_holds_no_items_links_or_frontmatter_text_and_stays_small(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(_vault())) as h:
        await h.indexed()
        out = await h.ok("search_dql", query='TABLE status, priority WHERE status = "active" SORT file.name', limit=5)
        assert out["total"] == NOTES // 3
        db = h.app.services.db
        [vault] = h.app.vaults.values()

        def measure(conn: Any) -> tuple[int, pages.Built]:
            # Only what the build allocated counts (a frame in service/dataview on the stack),
            # not what the server's other threads allocate meanwhile.
            ours = [tracemalloc.Filter(True, "*service/dataview/*", all_frames=True)]
            gc.collect()
            tracemalloc.start(40)
            try:
                built = pages.load(conn, vault.id)
                gc.collect()
                kept = tracemalloc.take_snapshot().filter_traces(ours)
                return sum(stat.size for stat in kept.statistics("filename")), built
            finally:
                tracemalloc.stop()

        size, built = await db.run_read(measure)
        assert len(built.pages.pages) == NOTES
        for page in built.pages.pages.values():
            assert not hasattr(page, "_items")  # a page keeps no list items (a query does: items.scope)
            assert not any(isinstance(v, (Link, list, dict)) for v in _slots(page))
        # ~1 KB a page here (typed fields, file facts, lookups); with items and links kept, 10 KB.
        assert size / NOTES < 2500, size / NOTES


async def test_file_fields_read_on_access_are_the_notes_and_follow_an_edit(make_vault: Callable[..., Path]) -> None:
    files = {
        "A.md": "---\nstatus: active\n---\nlinks [[B]] and ![[C|see]]\n- [ ] first task\n  - [x] child\n",
        "B.md": "plain\n",
        "C.md": "---\naliases: [Cee]\ntags: [x/y]\n---\nback to [[A]]\n",
        "D.canvas": '{"nodes": [{"id": "1", "type": "file", "file": "B.md"}], "edges": []}',
    }
    async with started(make_vault(files)) as h:
        await h.indexed()

        async def field(path: str, expr: str) -> Any:
            out = await h.ok("eval_dataview_field", path=path, field=expr)
            return out["fields"][expr]["value"]

        outlinks = await field("A", "file.outlinks")
        assert [(x["path"], x.get("display")) for x in outlinks] == [("B.md", None), ("C.md", "see")]
        assert [x["path"] for x in await field("B", "file.inlinks")] == ["A.md"]  # the canvas is no page
        assert await field("A", "file.frontmatter") == {"status": "active"}
        assert await field("C", "file.aliases") == ["Cee"]
        assert await field("C", "file.tags") == ["#x", "#x/y"]
        assert await field("A", "file.tasks.text") == ["first task", "child"]
        assert await field("A", "file.tasks.fullyCompleted") == [False, True]
        await h.ok("append_note", path="A", content="- [ ] second task [[D]]\nand [[B]] again\n")
        await h.settled()
        assert await field("A", "file.tasks.text") == ["first task", "child", "second task [[D]]"]
        assert [x["path"] for x in await field("A", "file.outlinks")][-1] == "B.md"
        # B was not edited: its kept page reads its incoming links from the index as they are now.
        assert [x["path"] for x in await field("B", "file.inlinks")] == ["A.md"]
        await h.confirmed("write_note", path="C.md", content="no link now\n", mode="overwrite")
        await h.settled()
        assert await field("A", "file.inlinks") == []
        tasks = await h.ok("search_dql", query="TASK WHERE !completed")
        assert [(t["text"], t["line"]) for t in tasks["rows"]] == [("first task", 4), ("second task [[D]]", 6)]


async def test_a_first_build_makes_the_pages_a_rebuild_makes(make_vault: Callable[..., Path]) -> None:
    files = _vault()
    files["Board.canvas"] = '{"nodes": [], "edges": []}'  # indexed, but no page
    files["Notes/Note 1.md"] += "\nstatus:: extra\nrating:: 7\nwhen:: 2024-03-01\nlink:: [[Note 2]]\n"
    async with started(make_vault(files)) as h:
        await h.indexed()
        db = h.app.services.db
        [vault] = h.app.vaults.values()

        def both(conn: Any) -> tuple[pages.Built, pages.Built]:
            first = pages.load(conn, vault.id)  # the one-statement first build
            empty = pages.Built(pages.PageSet([]), {}, pages.Links(first.links.reader))
            return first, pages.load(conn, vault.id, empty)  # nothing to keep: every page made again

        first, again = await db.run_read(both)
        assert list(first.pages.pages) == list(again.pages.pages) and len(first.pages.pages) == NOTES
        assert first.versions == again.versions
        for path, page in first.pages.pages.items():
            other = again.pages.pages[path]
            assert _slots(page) == _slots(other)
            assert repr({k: v for k, v in page.items() if k != "file"}) == repr(
                {k: v for k, v in other.items() if k != "file"}
            )
        names = {p.rsplit("/", 1)[-1].removesuffix(".md").lower() for p in first.pages.order}
        assert all(first.pages.names.get(n) == again.pages.names.get(n) for n in names)
        assert first.pages.order == again.pages.order


async def test_building_the_pages_leaves_no_cycles_for_the_collector(make_vault: Callable[..., Path]) -> None:
    # Garbage in cycles made while the build holds the collector off is freed only after it,
    # leaving holes among the pages that the process keeps (a closure per page did: ~37 MB of
    # the 180 MB a 10^5-note set grew the process by).
    files = _vault()
    files["Notes/Note 1.md"] += "\nstatus:: extra\nlist:: [[Note 2]], [[Note 3]]\n"
    async with started(make_vault(files)) as h:
        await h.indexed()
        db = h.app.services.db
        [vault] = h.app.vaults.values()

        def build(conn: Any) -> list[str]:
            gc.collect()
            was = gc.isenabled()
            gc.disable()
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                built = pages.load(conn, vault.id)
                assert len(built.pages.pages) == NOTES
                gc.collect()
                # Only the build's own (the server's other threads may leave cycles meanwhile).
                ours = (o for o in gc.garbage if isinstance(o, FunctionType) and o.__module__.startswith("service."))
                return sorted({o.__qualname__ for o in ours})
            finally:
                gc.set_debug(0)
                gc.garbage.clear()
                if was:
                    gc.enable()

        assert await db.run_read(build) == []


async def test_a_rebuild_keeps_the_unchanged_pages_and_makes_the_edited_one(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(_vault())) as h:
        await h.indexed()
        db = h.app.services.db
        [vault] = h.app.vaults.values()
        first = await db.run_read(lambda conn: pages.load(conn, vault.id))
        same = await db.run_read(lambda conn: pages.load(conn, vault.id, first))
        assert all(same.pages.pages[p] is page for p, page in first.pages.pages.items())
        assert same.pages.resolve_path("Note 7") == "Notes/Note 7.md" and same.pages.resolve_path("Nope") is None
        await h.ok("append_note", path="Notes/Note 5", content="\nrating:: 99\n")
        await h.settled()
        edited = await db.run_read(lambda conn: pages.load(conn, vault.id, same))
        fresh = await db.run_read(lambda conn: pages.load(conn, vault.id))
        changed = [p for p, page in edited.pages.pages.items() if same.pages.pages[p] is not page]
        assert changed == ["Notes/Note 5.md"]
        assert edited.pages.pages["Notes/Note 5.md"]["rating"] == [5, 99]
        assert edited.versions == fresh.versions != same.versions


def test_equal_sizes_and_times_are_one_object_and_keep_their_type() -> None:
    table: dict[Any, Any] = {}
    size, time, again = 1700000000, 1700000000.0, int("1700000000")
    assert same(table, size) is size and same(table, again) is size
    kept = same(table, time)
    assert type(kept) is float and kept == time  # equal to a size, still a time
    assert same(table, "x") == "x"


async def test_pages_of_equal_size_and_mtime_share_them(make_vault: Callable[..., Path]) -> None:
    files = {f"N{n}.md": f"---\nstatus: s{n}\n---\n" + "same\n" * 100 for n in range(4)}
    async with started(make_vault(files)) as h:
        await h.indexed()
        db = h.app.services.db
        [vault] = h.app.vaults.values()
        built = await db.run_read(lambda conn: pages.load(conn, vault.id))
        sizes = {id(p.size) for p in built.pages.pages.values()}
        assert len(sizes) == 1 and type(next(iter(built.pages.pages.values())).size) is int
        out = await h.ok("eval_dataview_field", path="N2", field="file.size")
        assert out["fields"]["file.size"]["value"] == len("---\nstatus: s2\n---\n" + "same\n" * 100)


async def test_a_page_is_its_own_row_its_file_is_made_on_access_and_equal_lists_are_one_object(
    make_vault: Callable[..., Path],
) -> None:
    files = {
        f"N{n}.md": f"---\ntags: [a, b]\nareas: [x, y{n % 2}]\nwhen: [2024-01-0{n + 1}]\n---\n- [ ] t{n}\n"
        for n in range(4)
    }
    async with started(make_vault(files)) as h:
        await h.indexed()
        db = h.app.services.db
        [vault] = h.app.vaults.values()
        built = await db.run_read(lambda conn: pages.load(conn, vault.id))
        n0, n1, n2 = (built.pages.pages[f"N{n}.md"] for n in range(3))
        file = n0["file"]  # made on access: the page holds no `file` object nor a separate row
        assert isinstance(file, pages.PageFile) and file._page() is n0 and n0.get("file") == file
        assert "file" not in pages.Page.__slots__ and all(not isinstance(v, FileFields) for v in n0._values)
        assert n0["tags"] is n1["tags"] == ["a", "b"]
        assert n0["areas"] is n2["areas"] == ["x", "y0"] and n1["areas"] == ["x", "y1"]
        assert n0["when"] is not n1["when"]  # lists of dates are each page's own
        assert file["name"] == "N0" and [t["text"] for t in file["tasks"]] == ["t0"] and "inlinks" in file
        assert sorted(file) == sorted([*pages._FILE_FIELDS, "tasks", "lists", "inlinks"])
        assert len(file) == len(list(file)) and file != n1["file"]
        out = await h.ok(
            "search_dql", query='TABLE file.name, areas, length(file.tasks) WHERE contains(areas, "y1") SORT file.name'
        )
        assert [r["path"] for r in out["rows"]] == ["N1.md", "N3.md"]


async def test_the_images_hold_the_indexers_path_objects_not_copies(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"a/N1.md": "---\nk: v\n---\nx\n", "N2.md": "y\n", "pic.png": "png"})) as h:
        await h.indexed()
        db = h.app.services.db
        [vault] = h.app.vaults.values()
        indexer = indexer_of(vault)
        assert indexer is not None
        held = {p: p for p in indexer.files()}
        built = await db.run_read(lambda conn: pages.load(conn, vault.id))
        assert sorted(built.pages.pages) == ["N2.md", "a/N1.md"]
        assert all(path is held[path] for path in built.pages.pages)  # one object per path in the process
        snap = await snapshot_of(vault, db)
        assert all(r.path is held[r.path] for r in snap.records if r.path.endswith(".md"))


async def test_rows_of_the_same_keys_share_one_key_table_and_read_as_the_dicts_they_were(
    make_vault: Callable[..., Path],
) -> None:
    files = {f"N{n}.md": f"---\nstatus: s{n}\npriority: {n}\n---\nrating:: {n}\n" for n in range(3)}
    files["Other.md"] = "---\nowner: me\n---\nx\n"
    async with started(make_vault(files)) as h:
        await h.indexed()
        db = h.app.services.db
        [vault] = h.app.vaults.values()
        built = await db.run_read(lambda conn: pages.load(conn, vault.id))
        n0, n1, other = (built.pages.pages[p] for p in ("N0.md", "N1.md", "Other.md"))
        assert not isinstance(n0, dict)  # no dict (and table of keys) per page
        assert n0._keys is n1._keys and other._keys is not n0._keys
        assert list(n1) == ["status", "priority", "rating", "file"] and len(n1) == 4
        assert dict(n1.items()) == {"status": "s1", "priority": 1, "rating": 1, "file": n1["file"]}
        assert n1.get("owner", 7) == 7 and "owner" in other and "owner" not in n1
        assert {**n1, "x": 1}["rating"] == 1

        async def field(expr: str) -> Any:
            out = await h.ok("eval_dataview_field", path="N1", field=expr)
            return out["fields"][expr]["value"]

        assert await field("length(row)") == 4
        assert (await field("row + this"))["status"] == "s1"
        assert (await field("row"))["priority"] == 1
        out = await h.ok("search_dql", query="TABLE status, rating WHERE priority >= 1 SORT file.name DESC")
        assert [r["path"] for r in out["rows"]] == ["N2.md", "N1.md"]


def test_a_pages_creation_time_is_kept_as_the_whole_seconds_it_shows() -> None:
    base = 1_700_000_000
    for t in (base + 0.25, base + 0.9999994, base + 0.9999995, base + 0.9999996, base + 0.0000004, -1.5, 0.0):
        assert stamp(whole_seconds(t)) == stamp(t), t
        assert type(whole_seconds(t)) is int


async def test_a_page_keeps_no_note_id_nor_folder_and_equal_seconds_are_one_object(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"a/N1.md": "---\nk: v\n---\n[[N2]]\n- [ ] t\n", "N2.md": "y\n"})) as h:
        await h.indexed()
        db = h.app.services.db
        [vault] = h.app.vaults.values()
        built = await db.run_read(lambda conn: pages.load(conn, vault.id))
        n1 = built.pages.pages["a/N1.md"]
        assert "nid" not in pages.Page.__slots__ and "folder" not in pages.Page.__slots__
        assert type(n1.ctime) is int
        file = n1["file"]
        assert file["folder"] == "a" and built.pages.pages["N2.md"]["file"]["folder"] == ""
        assert [x.path for x in file["outlinks"]] == ["N2.md"] and file["frontmatter"] == {"k": "v"}
        assert [t["text"] for t in file["tasks"]] == ["t"]
        out = await h.ok("eval_dataview_field", path="a/N1", field="file.ctime")
        assert out["fields"]["file.ctime"]["type"] == "date"


async def test_file_fields_after_an_edit_a_move_and_a_delete_equal_a_fresh_build(
    make_vault: Callable[..., Path],
) -> None:
    # The pages kept by a rebuild answer every `file` field as pages built afresh do; the tags
    # a page shares with the Bases snapshot stay its own note's.
    files = {
        "A.md": "---\ntags: [x, y/z]\n---\n[[B]] and [[C]]\n- [ ] a task\n",
        "B.md": "---\ntags: [x, y/z]\n---\nback to [[A]]\n",
        "C.md": "#solo\n[[B]]\n",
        "D.md": "---\ntags: [x, y/z]\n---\nplain\n",
    }
    fields = "file.name, file.folder, file.path, file.link, file.ext, file.size, file.tags, file.etags, file.inlinks"
    query = f"TABLE {fields}, file.outlinks, length(file.tasks), file.mtime SORT file.path"
    async with started(make_vault(files)) as h:
        await h.indexed()
        await h.ok("search_dql", query=query)  # both images built before the changes
        await h.ok("query_base", yaml="views:\n  - type: table\n    order: [file.name, file.tags]\n")
        await h.ok("append_note", path="A", content="\n- [ ] another #late\n")
        await h.confirmed("move_note", path="B.md", new_path="Sub/B2.md")
        await h.ok("delete_note", path="C.md")
        await h.settled()
        kept = await h.ok("search_dql", query=query)
        assert [r["path"] for r in kept["rows"]] == ["A.md", "D.md", "Sub/B2.md"]
        assert tools.PAGES.release_idle(-1) >= 1  # dropped: the next query builds the pages afresh
        fresh = await h.ok("search_dql", query=query)
        assert kept["rows"] == fresh["rows"]
        cells = {r["path"]: r["cells"] for r in fresh["rows"]}
        assert cells["Sub/B2.md"][:3] == [{"type": "string", "value": v} for v in ("B2", "Sub", "Sub/B2.md")]
        assert cells["A.md"][6]["value"] == ["#x", "#y", "#y/z", "#late"]
        assert cells["D.md"][6]["value"] == ["#x", "#y", "#y/z"]
        [vault] = h.app.vaults.values()
        snap = await snapshot_of(vault, h.app.services.db)
        db = h.app.services.db
        built = await db.run_read(lambda conn: tools.PAGES.get(db, conn, vault.id))
        assert built.pages["D.md"].tag_list == tuple(snap.by_path["D.md"].tags) == ("x", "y/z")
