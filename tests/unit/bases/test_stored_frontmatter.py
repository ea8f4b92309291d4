"""A Bases snapshot keeps no long frontmatter text: its records read it from the index when a
query needs it, and every property, whole column or one record at a time, reads as it did from
the text the record held. Tag sets are tuples."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.bases.env import property_column, read_property, record_properties
from service.bases.snapshot import Snapshot, StatRecord
from service.tools.obsidian.bases import snapshot_of
from tests.conftest import started

_LONG = "a long text that makes this frontmatter longer than the short ones kept as they are"
_FILES = {
    "Long.md": f"---\nstatus: open\nnote: {_LONG}\nowner: '[[Short]]'\nwhen: 2024-02-03\ntags: [x, y]\n---\n"
    "[[Short]]\n",
    "Esc.md": f'---\n"say \\"hi\\"": 2\n"été": 1\nsummary: {_LONG}\nstatus: done\n---\nx\n',
    "Short.md": "---\nstatus: open\n---\nshort\n",
    "Empty.md": "no frontmatter\n",
    "Nested.md": f"---\nstatus: open\nmeta:\n  owner: '[[Long]]'\n  text: {_LONG}\nlist: ['[[Esc]]', 3]\n---\n",
    "pic.png": "png",
}
_KEYS = ("status", "note", "owner", "when", "tags", 'say "hi"', "été", "summary", "meta", "list", "missing")


def _as_held(snap: Snapshot, texts: dict[str, str]) -> Snapshot:
    """The snapshot as it was before: every record holding its frontmatter text."""
    return Snapshot(
        [StatRecord(r.path, r.size, snap.ctime(r), r.mtime, r.tags, texts.get(r.path, "{}"), ()) for r in snap.records]
    )


async def _texts(h: Any, vault_id: str) -> dict[str, str]:
    sql = "SELECT path, properties FROM notes WHERE vault_id = ?"
    rows = await h.app.services.db.run_read(lambda conn: conn.execute(sql, (vault_id,)).fetchall())
    return {str(p): str(t) for p, t in rows}


async def _snapshot(h: Any) -> tuple[Any, Snapshot]:
    """The vault once indexed, and its Bases snapshot."""
    await h.indexed()
    [vault] = h.app.vaults.values()
    return vault, await snapshot_of(vault, h.app.services.db)


async def test_long_frontmatter_stays_in_the_index_and_every_property_reads_as_from_the_text(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(_FILES)) as h:
        vault, snap = await _snapshot(h)
        texts = await _texts(h, vault.id)
        held = {r.path: r.raw_props for r in snap.records if isinstance(r.raw_props, str)}
        assert all(len(t) < 64 for t in held.values())  # no long text in the image
        assert set(held) == {"Short.md", "Empty.md", "pic.png"}
        assert snap.by_path["Long.md"].tags == ("x", "y")  # a tuple per tag set, not a list
        old = _as_held(snap, texts)
        for key in _KEYS:
            assert repr(property_column(snap, key)) == repr(property_column(old, key)), key
        for rec, was in zip(snap.records, old.records, strict=True):
            assert rec.props == was.props == json.loads(texts.get(rec.path, "{}"))
            assert repr(record_properties(rec, snap)) == repr({k: read_property(was, k, old) for k in was.props})


async def test_one_records_properties_read_before_any_column_equal_the_held_texts(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(_FILES)) as h:
        vault, snap = await _snapshot(h)
        old = _as_held(snap, await _texts(h, vault.id))
        outsider = StatRecord("Long.md", 1, 0.0, 0.0, [], snap.by_path["Long.md"].raw_props, ())  # of no snapshot
        assert read_property(outsider, "when", snap) == read_property(old.by_path["Long.md"], "when", old)
        long = snap.by_path["Long.md"]
        assert repr(record_properties(long, snap)) == repr(record_properties(old.by_path["Long.md"], old))
        assert not snap.columns  # one record's properties make no column
        assert read_property(long, "status", snap) == "open"
        assert property_column(snap, "status") == [None, "done", "open", "open", "open", None]


async def test_queries_over_long_frontmatter_answer_as_before_and_after_an_edit(
    make_vault: Callable[..., Path],
) -> None:
    base = (
        'filters:\n  and:\n    - \'status == "open"\'\n    - \'file.hasProperty("note") || file.hasLink("Esc.md")\'\n'
        "views:\n  - type: table\n    order: [file.name, status, owner, when, file.properties, file.links]\n"
    )
    async with started(make_vault(_FILES)) as h:
        await h.indexed()
        out = await h.ok("query_base", yaml=base)
        assert [r["path"] for r in out["rows"]] == ["Long.md", "Nested.md"]
        long = out["rows"][0]["values"]
        assert long["owner"]["value"]["path"] == "Short.md" and long["when"]["type"] == "date"
        assert set(long["file.properties"]["value"]) == {"status", "note", "owner", "when", "tags"}
        assert [v["value"]["path"] for v in long["file.links"]["value"]] == ["Short.md", "Short.md"]
        await h.ok("set_properties", path="Nested", properties={"status": "done"})
        await h.ok("set_properties", path="Long", properties={"note": _LONG + " and more", "when": "2025-01-01"})
        await h.settled()
        again = await h.ok("query_base", yaml=base)
        assert [r["path"] for r in again["rows"]] == ["Long.md"]
        assert again["rows"][0]["values"]["when"]["value"].startswith("2025-01-01")
