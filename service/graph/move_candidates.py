"""Which linking notes a move must read: the index's link rows answer for most of them.

A move reads every note that links to a moved file's name (`plan_move`'s candidates) and
rewrites the links whose text no longer names their file. A folder's move names hundreds of
files, and most notes linking to them link by name, which the move leaves right: reading and
parsing each of them (~2,500 notes for a 249-note folder of the 10k workload, twice: once for the
confirmation's preview, once for the move) was most of the move's time. Here the decision
`rewrite_note` makes for each link (`linkpath.retargeted`) is made over the index's rows of the
note's links instead, and a note is read only when one of its links would change, or when its
rows cannot answer for it: a link the move's resolution does not find where the index found it
(the index and the rewrite read the link's text differently), or a note with no rows at all.

The index is where the candidates come from in the first place (a link it does not hold makes
no note a candidate), and the caller reads the notes whose links it may not hold whole: the moved
notes, canvases, notes past the index's length cap, notes with a link found in a property's value; and a note
holding `row_cap` link rows is read too: the index keeps that many of a note's links
(`service.indexer.caps.MAX_ROWS`), and a link past them is in no row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping

from service.graph.linkpath import PathSet, retargeted
from service.storage.db import Database

_CHUNK = 500  # stay far below SQLite's bound-parameter limit


async def kept_as_written(
    db: Database,
    vault_id: str,
    notes: Collection[str],
    moved: Mapping[str, str],
    before: PathSet,
    after: PathSet,
    row_cap: int,
) -> set[str]:
    """The notes of `notes` (none of them moving) whose every indexed link still names its file
    after `moved` (old path -> new), with `before` and `after` the vault's files around the move;
    none with `row_cap` rows or more (its links may have been cut there)."""
    wanted = sorted(notes)

    def run(conn: sqlite3.Connection) -> dict[str, bool]:
        fine: dict[str, bool] = {}
        rows: dict[str, int] = {}
        for i in range(0, len(wanted), _CHUNK):
            chunk = wanted[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            sql = (
                "SELECT s.path, l.target_raw, l.target_path FROM links l JOIN notes s ON s.id = l.src_id "
                f"WHERE s.vault_id = ? AND s.path IN ({marks})"
            )
            for src, raw, target in conn.execute(sql, (vault_id, *chunk)):
                path = str(src)
                rows[path] = rows.get(path, 0) + 1
                if fine.get(path, True):
                    fine[path] = _stays(str(raw), None if target is None else str(target), path, moved, before, after)
        return {path: ok and rows[path] < row_cap for path, ok in fine.items()}

    found = await db.run_read(run)
    return {path for path, ok in found.items() if ok}


def _stays(
    raw: str, indexed: str | None, source: str, moved: Mapping[str, str], before: PathSet, after: PathSet
) -> bool:
    text = raw.strip()
    if not text:
        return True  # `[[#Heading]]`: the note itself, which does not move
    old_target = before.resolve(text, source)
    if old_target != indexed:
        return False  # read differently here than by the index: the note is read
    return old_target is None or retargeted(text, old_target, source, after, moved) is None
