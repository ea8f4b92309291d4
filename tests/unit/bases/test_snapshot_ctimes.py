"""Creation times live in one array of the Bases snapshot, by record position (no float on each
record): after an edit, a rename and a delete, each followed by a rebuild (incremental, records
kept, remade and moved), file.ctime in a sort, a filter and a formula is each note's own."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.bases.snapshot import Record
from service.tools.obsidian.bases import snapshot_of
from tests.conftest import Harness, started

BASE = """\
formulas:
  stamp: 'file.ctime.format("YYYY-MM-DD HH:mm:ss.SSS")'
views:
  - type: table
    order: [file.name, file.ctime, formula.stamp]
    sort: [{property: file.ctime, direction: DESC}, {property: file.name, direction: ASC}]
"""


async def _expected(h: Harness) -> dict[str, float]:
    """path -> creation time as the index and the file system hold it (what a fresh build reads)."""
    [vault] = h.app.vaults.values()
    sql = "SELECT path, ctime, mtime FROM notes WHERE vault_id = ?"
    rows = await h.app.services.db.run_read(lambda conn: conn.execute(sql, (vault.id,)).fetchall())
    st = os.stat(vault.paths.root / "pic.png")
    return {str(p): float(c or m) for p, c, m in rows} | {"pic.png": getattr(st, "st_birthtime", st.st_ctime)}


async def _check(h: Harness) -> list[str]:
    """The query's rows agree with the index's creation times; returns the row paths."""
    expected = await _expected(h)
    out = await h.ok("query_base", yaml=BASE)
    [vault] = h.app.vaults.values()
    snap = await snapshot_of(vault, h.app.services.db)
    assert "ctime" not in Record.__slots__
    assert {r.path: snap.ctime(r) for r in snap.records} == expected
    paths = [r["path"] for r in out["rows"]]
    assert paths == sorted(expected, key=lambda p: (-expected[p], p))  # sorted by its own ctime
    cells = {r["path"]: r["values"] for r in out["rows"]}
    stamps = [cells[p]["formula.stamp"]["value"] for p in paths]
    assert stamps == sorted(stamps, reverse=True) and len(set(stamps)) == len(stamps)  # each its own
    # A filter on file.ctime (through the formula): the files made after the middle one.
    middle = cells[paths[len(paths) // 2]]["formula.stamp"]["value"]
    base = BASE.replace("views:", f"filters: 'formula.stamp > \"{middle}\"'\nviews:")
    filtered = await h.ok("query_base", yaml=base)
    assert [r["path"] for r in filtered["rows"]] == paths[: len(paths) // 2]
    return paths


async def test_file_ctime_follows_each_note_through_edit_rename_delete_and_rebuilds(
    make_vault: Callable[..., Path],
) -> None:
    files: dict[str, Any] = {f"N{n}.md": f"---\nstatus: s{n}\n---\nx\n" for n in range(6)} | {"pic.png": "png"}
    root = make_vault(files)
    for name in ["pic.png", *reversed(sorted(n for n in files if n.endswith(".md")))]:
        time.sleep(0.02)  # noqa: ASYNC251 (before the server starts) a creation time per file, in the reverse of name order
        os.chmod(root / name, 0o644)
    async with started(root) as h:
        await h.indexed()
        first = await _check(h)
        assert first[:2] == ["N0.md", "N1.md"]
        await asyncio.sleep(0.02)
        await h.ok("set_properties", path="N3", properties={"status": "edited"})
        await h.settled()
        await _check(h)
        await h.ok("move_note", path="N4", new_path="A4")
        await h.settled()
        assert "A4.md" in await _check(h)
        await h.ok("delete_note", path="N1")
        await h.settled()
        assert "N1.md" not in await _check(h)
