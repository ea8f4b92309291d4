"""Notes that only changed place: their rows move with them instead of being stored again.

A batch that removes an indexed note and adds a file of the same name and content hash (a move or
a folder's move made by vaultgate, announced as "moved"; or one another program made, which the
watcher sees as a deletion and a creation) deleted every row of the note (its words and trigrams
in the full-text indexes, tags, properties, tasks, chunks) and parsed and inserted them again:
~5 ms a note, most of a folder's move (249 notes of the 10k workload). What the index derives
from a note's text depends on its path only through
- its title (the file's base name, `parse.note_title`, which the full-text title starts with):
  only a note keeping its base name is paired here, so it is unchanged;
- its folder and path columns, and its stat columns (mtime, ctime, size), taken from the file read
  at the new path as a fresh index takes them;
- where its links resolve (`PathSet.resolve` from the new path): every link row is resolved
  again here;
- the text of the images and PDFs it embeds, joined to its full-text row (`service.ocr.attached`):
  recomputed when it embeds any.
So the note's row keeps its id and takes the new path, every other row stays as it is (the chunks
and their vectors, keyed on the note's id, with them: nothing is chunked or embedded again), and
the full-text indexes are not touched. The pairing is by content: whichever removed note of that
name and hash a new file is paired with, the rows are those a parse of the new file would store.
A note the index holds with a recorded issue (capped, read with another encoding) is stored
again as before, so its issue is found again at the new path.

Runs inside `apply.py`'s writer transaction, before the batch's other notes are stored; and at
a start (`reconcile.py`), for the moves made while the server was down: a note the index holds
that is gone from disk and a new file of its name and content hash (`arrivals`) are paired the
same way, before the changed notes are parsed.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service.graph.linkpath import PathSet, base_name
from service.indexer.reading import NoteInput, read_note_file
from service.indexer.unresolved import UnresolvedTargets
from service.ocr import attached
from service.retrieval.unspaced import words_text
from service.storage.db import Database

if TYPE_CHECKING:
    from service.indexer.state import IndexerState
    from service.indexer.status import Token

_CHUNK = 500  # paths per statement, far below SQLite's variable limit


@dataclass(frozen=True, slots=True)
class Relocation:
    note_id: int
    old: str  # the path its rows had
    item: NoteInput  # the file at its new path, as read


async def indexed(db: Database, vault_id: str, paths: Sequence[str]) -> list[tuple[int, str, str]]:
    """(id, path, etag) of the notes the index holds at `paths`."""
    found: list[tuple[int, str, str]] = []
    for at in range(0, len(paths), _CHUNK):
        chunk = paths[at : at + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for r in await db.fetchall(
            f"SELECT id, path, etag FROM notes WHERE vault_id = ? AND path IN ({marks})", (vault_id, *chunk)
        ):
            found.append((int(r[0]), str(r[1]), str(r[2])))
    return found


def pair(gone: Iterable[tuple[int, str, str]], items: Iterable[NoteInput], held: Collection[str]) -> list[Relocation]:
    """Each new file of `items` paired with a removed note of `gone` ((id, path, etag)) of the same
    base name and content hash, each note at most once; none whose old path is in `held` (its
    issue is to be found again)."""
    by_key: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for note_id, path, etag in sorted(gone, key=lambda g: g[1]):
        if etag and path not in held:
            by_key.setdefault((base_name(path), etag), []).append((note_id, path))
    moved: list[Relocation] = []
    for item in items:
        olds = by_key.get((base_name(item.path), item.etag))
        if olds:
            note_id, old = olds.pop(0)
            moved.append(Relocation(note_id, old, item))
    return moved


def arrivals(root: Path, gone: Collection[str], added: Iterable[str]) -> list[NoteInput]:
    """The files of `added` (on disk, not in the index) named as a note of `gone` (in the index,
    not on disk) is, read for their content hash: what `pair` matches. Their text is dropped (a
    pair keeps the rows, and a folder's move may bring thousands). Blocks: a worker thread."""
    names = {base_name(path) for path in gone}
    found: list[NoteInput] = []
    for rel in added:
        if base_name(rel) in names and (item := read_note_file(root, rel)) is not None:
            found.append(replace(item, text=""))
    return found


async def moved_while_down(ix: IndexerState, removed: list[str], added: list[str], paths: PathSet) -> list[Relocation]:
    """Give the notes moved while the server was down (a note the index holds gone from disk, a
    new file of its name and content hash: `pair`) their new paths, their rows kept, in
    one write before the changed notes are parsed; returns them. The links to their old paths
    are resolved again with the notes gone (`reconcile.finish`: the old paths stay in `removed`)."""
    if not removed or not added:
        return []
    found = await asyncio.to_thread(arrivals, ix.vault.paths.root, removed, added)
    if not found:
        return []
    held = ix._issues.paths("capped") | ix._issues.paths("encoding")
    moved = pair(await indexed(ix.db, ix.vault.id, removed), found, held)
    if not moved:
        return []
    touched = [*(r.old for r in moved), *(r.item.path for r in moved)]
    counts, unresolved, vault_id = ix._counts, ix._unresolved, ix.vault.id

    def write(conn: Any) -> Token | None:
        before = counts.before(conn, touched)
        store(conn, vault_id, moved, paths, unresolved)
        return counts.after(conn, before, touched)

    try:
        counts.committed(await ix.db.run_write(write))
    except BaseException:
        ix._void_kept()
        raise
    await ix._bump(touched)
    return moved


def store(
    conn: sqlite3.Connection,
    vault_id: str,
    moved: Sequence[Relocation],
    paths: PathSet,
    unresolved: UnresolvedTargets,
) -> None:
    """Give each relocated note its new path and stat columns, resolve its links from there, and
    join the text of what it now embeds to its full-text row when that differs."""
    for r in moved:
        it = r.item
        conn.execute(
            "UPDATE notes SET path = ?, folder = ?, mtime = ?, ctime = ?, size = ?, indexed_at = ? WHERE id = ?",
            (it.path, it.path.rpartition("/")[0], it.mtime, it.ctime, it.size, time.time(), r.note_id),
        )
        links = conn.execute("SELECT id, target_raw, target_path, embed FROM links WHERE src_id = ?", (r.note_id,))
        updates: list[tuple[str | None, int]] = []
        before: list[tuple[object, ...]] = []
        after: list[tuple[object, ...]] = []
        for link_id, raw, current, embed in links.fetchall():
            target = paths.resolve(str(raw), it.path)
            if target != current:
                updates.append((target, int(link_id)))
            if target is None:
                unresolved.add((str(raw),))
            before.append((raw, current, None, None, embed))
            after.append((raw, target, None, None, embed))
        conn.executemany("UPDATE links SET target_path = ? WHERE id = ?", updates)
        _embedded_texts(conn, vault_id, r.note_id, attached.embedded_targets(before), attached.embedded_targets(after))


def _embedded_texts(conn: sqlite3.Connection, vault_id: str, note_id: int, before: list[str], after: list[str]) -> None:
    """The note's full-text row as `rows.upsert_note` would store it with its links resolved from
    the new path: its own text, then the read text of what it embeds (`attached`)."""
    if not before and not after:
        return  # no embedded image or PDF, before or now: its row holds its own text only
    row = conn.execute("SELECT body FROM note_text WHERE note_id = ?", (note_id,)).fetchone()
    if row is None:
        return
    body = str(row[0])
    wanted = attached.with_texts(body, attached.texts_for(conn, vault_id, after)) if after else attached.own_text(body)
    if wanted != body:
        conn.execute(
            "UPDATE note_text SET body = ?, body_words = ? WHERE note_id = ?", (wanted, words_text(wanted), note_id)
        )
