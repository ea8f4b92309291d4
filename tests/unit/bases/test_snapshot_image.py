"""The compact Bases snapshot: frontmatter kept as JSON text and converted into per-snapshot
columns, records shared between snapshots only at the same place, and an incremental snapshot
(columns carried over, the edited note's values dropped) answering as a fresh one."""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.bases.env import property_column, read_property
from service.bases.snapshot import Record, Snapshot, StatRecord
from service.bases.source import load_snapshot
from service.indexer.runner import indexer_of
from service.tools.obsidian.bases import snapshot_of
from tests.conftest import started


def _record(path: str, props: dict[str, Any]) -> Record:
    return StatRecord(path, 1, 0.0, 0.0, [], json.dumps(props), ())


def test_a_record_at_another_place_in_a_new_snapshot_is_copied_and_the_old_one_stays_right() -> None:
    a, b = _record("a.md", {"k": "x"}), _record("b.md", {"k": "y"})
    old = Snapshot([a, b])
    assert property_column(old, "k") == ["x", "y"]
    new = Snapshot([_record("0.md", {}), a, b])  # a new file sorts first: a and b move
    assert [r.path for r in new.records] == ["0.md", "a.md", "b.md"]
    assert new.records[1] is not a and a.i == 0 and b.i == 1
    assert property_column(new, "k") == [None, "x", "y"]
    assert read_property(b, "k", old) == "y" and read_property(new.records[2], "k", new) == "y"
    assert read_property(b, "k", new) == "y"  # a record of another snapshot: converted, not kept


def test_properties_are_found_however_the_index_wrote_their_keys() -> None:
    rec = StatRecord("n.md", 1, 0.0, 0.0, [], '{"\\u00e9t\\u00e9": 1, "say \\"hi\\"": 2, "plain": 3}', ())
    snap = Snapshot([rec])
    assert read_property(rec, "été", snap) == 1
    assert read_property(rec, 'say "hi"', snap) == 2
    assert read_property(rec, "plain", snap) == 3 and read_property(rec, "missing", snap) is None
    assert rec.props == {"été": 1, 'say "hi"': 2, "plain": 3}


async def test_an_incremental_snapshot_answers_as_a_fresh_one(make_vault: Callable[..., Path]) -> None:
    files = {
        f"N{n}.md": f"---\nstatus: {('open', 'done')[n % 2]}\nowner: '[[N{(n + 1) % 6}]]'\n"
        f"when: 2024-02-0{n + 1}\n---\nx\n"
        for n in range(6)
    }
    base = "filters: 'status == \"open\"'\nviews:\n  - type: table\n    order: [file.name, status, owner, when]\n"
    async with started(make_vault(files)) as h:
        await h.indexed()
        first = await h.ok("query_base", yaml=base)
        assert [r["values"]["file.name"]["value"] for r in first["rows"]] == ["N0.md", "N2.md", "N4.md"]
        [vault] = h.app.vaults.values()
        db = h.app.services.db
        before = await snapshot_of(vault, db)
        assert {"status", "owner", "when"} <= set(before.columns)
        await h.ok("set_properties", path="N2", properties={"status": "done", "owner": "[[N5]]"})
        await h.settled()
        after = await h.ok("query_base", yaml=base)
        assert [r["values"]["file.name"]["value"] for r in after["rows"]] == ["N0.md", "N4.md"]
        kept = await snapshot_of(vault, db)
        assert kept is not before and kept.records[0] is before.records[0]  # unchanged notes kept
        indexer = indexer_of(vault)
        assert indexer is not None
        root, names = str(vault.paths.root), indexer.files()
        fresh = await db.run_read(lambda conn: load_snapshot(conn, vault.id, root, names, -1))
        for key in ("status", "owner", "when"):
            assert [repr(v) for v in property_column(kept, key)] == [repr(v) for v in property_column(fresh, key)]
        assert property_column(kept, "status")[2] == "done"


_LINKED = {
    "A.md": "---\nstatus: open\n---\n[[B]] and [[B|the b]], ![[pic.png]], [[Missing note]], [[#Top]]\n",
    "B.md": "---\nstatus: done\n---\n[[A#Part]] and [[C]]\n",
    "C.md": "---\nstatus: open\n---\nno links\n",
    "pic.png": "png",
}
_EAGER = (
    "SELECT n.path, l.target_raw, l.target_path, l.alias, l.embed FROM links l JOIN notes n ON n.id = l.src_id"
    " WHERE l.vault_id = ? ORDER BY l.src_id, l.id"
)


def _eager_links(conn: Any, vault_id: str) -> dict[str, tuple[Any, ...]]:
    """Every note's links as the snapshot held them when it read them at the build."""
    out: dict[str, list[Any]] = {}
    for src, target, path, alias, embed in conn.execute(_EAGER, (vault_id,)).fetchall():
        if target:
            out.setdefault(src, []).extend((target, path, alias, bool(embed)))
    return {k: tuple(v) for k, v in out.items()}


async def test_links_are_read_when_a_query_first_asks_and_equal_the_eager_read(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(_LINKED)) as h:
        await h.indexed()
        await h.ok("query_base", yaml="filters: 'status == \"open\"'\n")
        [vault] = h.app.vaults.values()
        db = h.app.services.db
        snap = await snapshot_of(vault, db)
        assert all(not isinstance(r.raw_links, tuple) for r in snap.records if r.path.endswith(".md"))
        linked = await h.ok("query_base", yaml='filters: file.hasLink("B.md")\n')
        assert [r["path"] for r in linked["rows"]] == ["A.md"]
        assert all(isinstance(r.raw_links, tuple) for r in snap.records)  # one read filled every record
        eager = await db.run_read(lambda conn: _eager_links(conn, vault.id))
        assert {r.path: r.flat_links for r in snap.records if r.flat_links} == eager
        assert snap.backlinks("B.md") == ["A.md"] and snap.backlinks("A.md") == ["B.md"]
        assert snap.records[0].links[0].path == "B.md" and snap.records[0].links[1].alias == "the b"


async def test_an_incremental_snapshot_takes_over_links_not_read_yet(make_vault: Callable[..., Path]) -> None:
    base = "views:\n  - type: table\n    order: [file.name, file.backlinks, file.links]\n"
    async with started(make_vault(_LINKED)) as h:
        await h.indexed()
        await h.ok("query_base", yaml="filters: 'status == \"open\"'\n")  # a snapshot, links unread
        [vault] = h.app.vaults.values()
        db = h.app.services.db
        before = await snapshot_of(vault, db)
        await h.ok("set_properties", path="C", properties={"status": "done"})
        await h.settled()
        after = await h.ok("query_base", yaml=base)
        kept = await snapshot_of(vault, db)
        assert kept is not before and kept.records[0] is before.records[0]
        indexer = indexer_of(vault)
        assert indexer is not None
        root, names = str(vault.paths.root), indexer.files()
        fresh = await db.run_read(lambda conn: load_snapshot(conn, vault.id, root, names, -1))
        assert [r.flat_links for r in kept.records] == [r.flat_links for r in fresh.records]
        assert [r.flat_links for r in before.records] == [r.flat_links for r in fresh.records]
        rows = {r["path"]: r["values"] for r in after["rows"]}
        assert [v["value"]["path"] for v in rows["B.md"]["file.backlinks"]["value"]] == ["A.md"]


async def test_a_rebuild_keeps_the_unchanged_records_and_reads_the_edited_note_again(
    make_vault: Callable[..., Path],
) -> None:
    files = {f"N{n}.md": f"---\nstatus: s{n}\n---\nx\n" for n in range(5)} | {"pic.png": "png"}
    async with started(make_vault(files)) as h:
        await h.indexed()
        [vault] = h.app.vaults.values()
        db, indexer = h.app.services.db, indexer_of(vault)
        assert indexer is not None
        root = str(vault.paths.root)

        def load(previous: Snapshot | None) -> Any:
            names = indexer.files()
            return db.run_read(lambda conn: load_snapshot(conn, vault.id, root, names, -1, previous))

        first = await load(None)
        assert first.version("pic.png") is None and first.version("N1.md") is not None
        # The versions are one array of the snapshot, no int object on each record.
        assert (
            "v" not in Record.__slots__ and type(first.versions) is array and len(first.versions) == len(first.records)
        )
        same = await load(first)
        assert all(a is b for a, b in zip(first.records, same.records, strict=True) if a.path.endswith(".md"))  # notes
        await h.ok("set_properties", path="N3", properties={"status": "edited"})
        await h.settled()
        edited, fresh = await load(same), await load(None)
        remade = [
            r.path for a, r in zip(same.records, edited.records, strict=True) if a is not r and a.path.endswith(".md")
        ]
        assert remade == ["N3.md"]
        assert [edited.version(r.path) for r in edited.records] == [fresh.version(r.path) for r in fresh.records]
        assert edited.version("N3.md") != same.version("N3.md")
        assert read_property(edited.records[3], "status", edited) == "edited"


async def test_records_of_equal_size_and_mtime_share_them(make_vault: Callable[..., Path]) -> None:
    files = {f"N{n}.md": f"---\nstatus: s{n}\n---\n" + "same\n" * 100 for n in range(4)}
    async with started(make_vault(files)) as h:
        await h.indexed()
        [vault] = h.app.vaults.values()
        snap = await snapshot_of(vault, h.app.services.db)
        assert len({id(r.size) for r in snap.records}) == 1 and type(snap.records[0].size) is int
        out = await h.ok("query_base", yaml="views:\n  - type: table\n    order: [file.name, file.size]\n")
        sizes = {r["values"]["file.size"]["value"] for r in out["rows"]}
        assert sizes == {len("---\nstatus: s0\n---\n" + "same\n" * 100)}


async def test_file_links_are_kept_by_the_snapshot_and_a_rebuild_answers_after_an_edit(
    make_vault: Callable[..., Path],
) -> None:
    files = {
        "A.md": "---\nowner: '[[C]]'\n---\nsee [[B]] and ![[C]]\n",
        "B.md": "plain\n",
        "C.md": "---\nk: v\n---\nback to [[A]]\n",
    }
    base = (
        "views:\n  - type: table\n    order: [file.name, formula.l, formula.e]\n"
        "formulas:\n  l: file.links\n  e: file.embeds\n"
    )

    def links(out: dict[str, Any]) -> dict[str, tuple[list[str], list[str]]]:
        def paths(cell: dict[str, Any]) -> list[str]:
            return [x["value"]["path"] for x in cell["value"]]

        return {
            r["values"]["file.name"]["value"]: (paths(r["values"]["formula.l"]), paths(r["values"]["formula.e"]))
            for r in out["rows"]
        }

    async with started(make_vault(files)) as h:
        await h.indexed()
        first = links(await h.ok("query_base", yaml=base))
        assert first["A.md"] == (["B.md", "C.md"], ["C.md"])  # [[B]] and the owner; ![[C]]
        assert first["B.md"] == ([], [])
        [vault] = h.app.vaults.values()
        snap = await snapshot_of(vault, h.app.services.db)
        a = snap.by_path["A.md"]
        assert "_cache" not in Record.__slots__ and a in snap.link_lists[False] and a in snap.link_lists[True]
        await h.confirmed(
            "write_note", path="A.md", content="---\nowner: '[[B]]'\n---\nnow only [[C]]\n", mode="overwrite"
        )
        await h.settled()
        again = links(await h.ok("query_base", yaml=base))
        assert again["A.md"] == (["C.md", "B.md"], []) and again["B.md"] == first["B.md"]
        assert again["C.md"] == first["C.md"]  # a record kept by the rebuild: same links, made again
        rebuilt = await snapshot_of(vault, h.app.services.db)
        assert rebuilt is not snap and rebuilt.by_path["C.md"] is snap.by_path["C.md"]
