"""Snapshots of the index for Bases queries, cached per vault and index generation.

`load_snapshot` reads one vault's notes (path, stat facts, tags, frontmatter) from the index
(their links when a query first asks for any: `snapshot.LinkTable`), and adds the vault's other
files (attachments, `.base`, `.canvas`; the indexer keeps their names) with their stat facts,
so `file.ext` filters see every file as in Obsidian. Given the previous snapshot it is
incremental: only notes whose etag, times or size changed are read again (the links of every
note are read anew when a note was added or removed, since names decide where links resolve).
`SnapshotCache` keeps the last snapshot of each indexer and reuses it while the indexer's
`generation` (bumped by every index write) is unchanged (and drops one no query has read for a
while when asked: `release_idle`), so a query reads no file and repeats no SQL unless the vault
changed; the background refresh of `service.tools.query_warmup` keeps it current. Runs in a
reader thread (`Database.run_read`).
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
import time
import weakref
from array import array
from collections.abc import Awaitable, Callable, Collection, Iterable
from pathlib import Path
from typing import Any, cast

from service.bases.reads import IndexTexts
from service.bases.snapshot import NOT_NOTE, PROPERTY, UNSET, LinkTable, Props, Record, Snapshot, StoredTexts
from service.errors import PathInvalid
from service.gcpause import paused
from service.query_images import Tags, borrowed, peer_tags, publish
from service.storage.db import driver
from service.vault import dirfd
from service.vault.spelling import on_disk

_NOTES = "SELECT id, path, etag, mtime, ctime, size FROM notes WHERE vault_id = ?"
# A short frontmatter text is kept (shared: a vault repeats them), a longer one read when a
# query needs it (`reads.IndexTexts`): NULL here.
_SHORT = "CASE WHEN length(properties) < 64 THEN properties END"
_WHOLE = f"SELECT id, path, etag, mtime, ctime, size, tags, {_SHORT} FROM notes WHERE vault_id = ?"
_CONTENT = f"SELECT id, tags, {_SHORT} FROM notes"
# Links first, each note by rowid (CROSS JOIN: the planner keeps that order), grouped by note. A
# link written in a property is read too (its `embed` slot None, `snapshot.PROPERTY`): it counts in
# file.backlinks as in Obsidian and get_backlinks; `file.links` skips it, since it adds the links of
# the property values as Bases reads them (`methods.file_links`).
_LINKS = (
    "SELECT n.path, l.target_raw, l.target_path, l.alias, l.embed, l.property IS NOT NULL FROM links l"
    " CROSS JOIN notes n ON n.id = l.src_id WHERE l.vault_id = ? ORDER BY l.src_id, l.id"
)


_PEER = object()  # the key of a build's `shared` table under which the Dataview pages' tags are found
_TAG_SETS = object()  # ... and under which its own tag tuples are, each keyed by itself


def _chunked(conn: sqlite3.Connection, sql: str, column: str, ids: list[int]) -> list[Any]:
    rows: list[Any] = []
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        rows += conn.execute(f"{sql} WHERE {column} IN ({','.join('?' * len(chunk))})", chunk).fetchall()
    return rows


def load_snapshot(
    conn: sqlite3.Connection, vault_id: str, root: str, files: list[str], stamp: Any, previous: Snapshot | None = None
) -> Snapshot:
    """The vault's snapshot. With `previous`, the records of notes whose etag, times and size are
    unchanged are kept (with their converted values while no note was added or removed, since
    names decide where a link resolves), and only the other notes are read again."""
    with paused():  # ~10^5 small objects: generational collections only cost time here
        return _load(conn, vault_id, root, files, stamp, previous)


def _load(
    conn: sqlite3.Connection, vault_id: str, root: str, files: list[str], stamp: Any, previous: Snapshot | None
) -> Snapshot:
    table = LinkTable(_link_reader(conn, vault_id))
    # One table of texts for every snapshot made from the last: the records kept point at it.
    texts = previous.texts if previous is not None else None
    if not isinstance(texts, IndexTexts) or texts.vault_id != vault_id:
        texts = IndexTexts(conn, vault_id)
    shared: dict[Any, Any] = {"{}": "{}", None: texts, _PEER: peer_tags("bases", vault_id), _TAG_SETS: {}}
    notes: list[Any] | None = None
    stale: list[int] = []
    if previous is not None:
        # Paths interned: the Dataview pages of the same vault hold the same path objects.
        notes = [(r[0], sys.intern(r[1]), *r[2:]) for r in conn.execute(_NOTES, (vault_id,))]
        versions = {str(r[1]): hash((r[2], r[3], r[4], r[5])) for r in notes}
        stale = [int(r[0]) for r in notes if previous.version(r[1]) != versions[r[1]]]
        if len(stale) > len(notes) // 2:
            notes = None
    if notes is None:
        records, held, ctimes = _whole(conn, vault_id, table, shared)
    else:
        assert previous is not None
        records = _incremental(conn, notes, stale, previous, versions, table, shared)
        held = array("q", (versions[r.path] for r in records))
        ctimes = array("d", (ctime or mtime for _nid, _path, _etag, mtime, ctime, _size in notes))
    known = {r.path for r in records}
    for rel in files:
        if rel in known or rel.lower().endswith(".md"):
            continue
        st = _file_stat(root, on_disk(root, rel))  # an NFD name too
        if st is None:
            continue
        records.append(Record(rel, st.st_size, st.st_mtime, (), "{}", ()))
        held.append(NOT_NOTE)
        ctimes.append(getattr(st, "st_birthtime", st.st_ctime))
    order = sorted(range(len(records)), key=lambda i: records[i].path)
    snap = Snapshot([records[i] for i in order], stamp, (held[i] for i in order), (ctimes[i] for i in order))
    snap.texts = texts
    table.records = snap.records
    publish("bases", vault_id, snap)
    if notes is not None and previous is not None and _same_names(previous, versions):
        _carry_columns(previous, snap, set(stale), notes)
    return snap


def _file_stat(root: str, rel: str) -> os.stat_result | None:
    """The size and times of the file `rel`, opened with no link followed on the way
    (`service.vault.dirfd`, one openat2 call where armed): a folder swapped for a link to outside
    since the index listed it is never followed (None, as for a file gone or not a regular file)."""
    try:
        fd, st = dirfd.open_file(Path(root), rel)
    except (OSError, PathInvalid):
        return None
    os.close(fd)
    return st


def _same_names(previous: Snapshot, new: Collection[str]) -> bool:
    """Whether `previous` holds the notes of `new`, no more (its other files do not count)."""
    old = [r.path for r, v in zip(previous.records, previous.versions, strict=True) if v != NOT_NOTE]
    return len(old) == len(new) and all(p in new for p in old)


def _tags(path: str, tags: str | None, shared: dict[Any, Any]) -> Tags:
    """One tuple per tag set (a tuple, not a list: ~2 MB less at 10^5 notes): the Dataview
    pages' tuple for the note when they hold an equal one (`service.query_images`,
    `shared[_PEER]`). The note's text is decoded each time and the tuples are keyed by
    themselves: a table keyed by the JSON texts kept ~65,000 texts alive through the build,
    interleaved with the records, and the holes they left when freed stayed resident."""
    written: list[str] = json.loads(tags) if tags and tags != "[]" else []
    decoded = tuple(map(shared.setdefault, written, written))
    tag_sets: dict[Tags, Tags] = shared[_TAG_SETS]
    tag_list = tag_sets.get(decoded)
    if tag_list is None:
        tag_list = tag_sets[decoded] = borrowed(decoded, shared[_PEER](path))
    return tag_list


def _same(shared: dict[Any, Any], value: Any) -> Any:
    """One object for equal sizes or times across records (they repeat in a vault)."""
    kept = shared.setdefault(value, value)
    return kept if type(kept) is type(value) else value  # 1 == 1.0: a size is never a time


def _props(props: str | None, shared: dict[Any, Any]) -> Props:
    """A short text as one object for equal texts; a longer one (NULL from `_SHORT`) stays in
    the index, read through the snapshot's `IndexTexts` (`shared[None]`)."""
    if props is None:
        return cast(StoredTexts, shared[None])
    text = props or "{}"
    return cast(str, shared.setdefault(text, text))


def _whole(
    conn: sqlite3.Connection, vault_id: str, table: LinkTable, shared: dict[Any, Any]
) -> tuple[list[Record], array[int], array[float]]:
    """Every note's record, version and creation time, made as its row comes: one row at a time,
    no list of every row (at 10^5 notes such lists were tens of megabytes the process kept after
    the build)."""
    records: list[Record] = []
    versions = array("q")
    ctimes = array("d")
    for _nid, raw_path, etag, mtime, ctime, size, tags, props in conn.execute(_WHOLE, (vault_id,)):
        path = sys.intern(raw_path)  # the Dataview pages of the same vault hold the same path objects
        versions.append(hash((etag, mtime, ctime, size)))
        ctimes.append(ctime or mtime)
        tag_list, text = _tags(path, tags, shared), _props(props, shared)
        records.append(Record(path, _same(shared, size), _same(shared, mtime), tag_list, text, table))
    return records, versions, ctimes


def _incremental(
    conn: sqlite3.Connection,
    notes: list[Any],
    stale: list[int],
    previous: Snapshot,
    versions: dict[str, int],
    table: LinkTable,
    shared: dict[Any, Any],
) -> list[Record]:
    """The records of `notes`, in their order: the unchanged ones kept from `previous` (made
    again, with links read anew, when a note was added or removed: names decide where links
    resolve), the stale ones read again. Their creation times are the rows' (`_load`)."""
    fresh = {int(nid): (tags, props) for nid, tags, props in _chunked(conn, _CONTENT, "id", stale)}
    same_names = _same_names(previous, versions)
    kept = previous.by_path
    records: list[Record] = []
    for nid, path, _etag, mtime, _ctime, size in notes:
        if nid in fresh:
            tags, props = fresh[nid]
            tag_list, text = _tags(path, tags, shared), _props(props, shared)
            records.append(Record(path, _same(shared, size), _same(shared, mtime), tag_list, text, table))
            continue
        rec = kept[path]
        if not same_names:
            rec = Record(rec.path, size, mtime, rec.tags, rec.raw_props, table)
        elif isinstance(rec.raw_links, LinkTable):
            rec._links = table  # links not read yet: this snapshot's table reads them (the same links)
        records.append(rec)
    return records


def _link_reader(conn: sqlite3.Connection, vault_id: str) -> Callable[[], dict[str, tuple[Any, ...]]]:
    """A function reading every note's links (path -> flat tuple, in the note's order) from the
    index, on a read-only connection of its own (a query runs in a worker thread, not the
    reader the snapshot was built on); an index without a file is read through `conn`."""
    file = next((str(f or "") for _seq, name, f in conn.execute("PRAGMA database_list") if name == "main"), "")

    def read() -> dict[str, tuple[Any, ...]]:
        own: sqlite3.Connection | None = None
        if file:
            uri = "file:" + file.replace("?", "%3f").replace("#", "%23") + "?mode=ro"
            own = driver().connect(uri, uri=True, check_same_thread=False)  # the index's SQLite library
            own.execute("PRAGMA busy_timeout=5000")
        try:
            return _links_by_path((own or conn).execute(_LINKS, (vault_id,)))
        finally:
            if own is not None:
                own.close()

    return read


def _links_by_path(rows: Iterable[Any]) -> dict[str, tuple[Any, ...]]:
    links: dict[str, tuple[Any, ...]] = {}
    shared: dict[Any, Any] = {}
    share = shared.setdefault
    flat: list[Any] = []
    owner = ""
    for src, target, target_path, alias, embed, in_property in rows:
        if src != owner:  # rows come grouped by note: one tuple per note, built once
            if flat:
                links[owner] = tuple(flat)
            owner, flat = src, []
        if target:
            path = sys.intern(target_path) if target_path is not None else None  # the records' path object
            alias = share(alias, alias) if alias is not None else None
            flat.extend((share(target, target), path, alias, PROPERTY if in_property else bool(embed)))
    if flat:
        links[owner] = tuple(flat)
    return links


def _carry_columns(previous: Snapshot, snap: Snapshot, stale: set[int], notes: list[Any]) -> None:
    """The converted property columns of `previous` that still hold, for `snap`: with the same
    notes (links resolve as before) at the same places, all but the changed notes' values."""
    if len(previous.records) != len(snap.records):
        return
    if any(a.path != b.path for a, b in zip(previous.records, snap.records, strict=True)):
        return
    changed = {str(r[1]) for r in notes if int(r[0]) in stale}
    places = [r.i for r in snap.records if r.path in changed]
    for key, col in previous.columns.items():
        copy = list(col)
        for i in places:
            copy[i] = UNSET
        snap.columns[key] = copy


class SnapshotCache:
    """The latest snapshot per indexer (weakly keyed: a closed vault's snapshot goes with it),
    and one build at a time per indexer: a query arriving while the background refresh builds
    waits for that build instead of starting a second one."""

    def __init__(self) -> None:
        self._by_indexer: weakref.WeakKeyDictionary[Any, Snapshot] = weakref.WeakKeyDictionary()
        self._locks: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()
        self._used: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()  # last query read

    def get(self, indexer: Any, generation: int) -> Snapshot | None:
        snap = self._by_indexer.get(indexer)
        return snap if snap is not None and snap.stamp == generation else None

    def latest(self, indexer: Any) -> Snapshot | None:
        """The last snapshot built, whatever its generation (what a rebuild may reuse)."""
        return self._by_indexer.get(indexer)

    def put(self, indexer: Any, snapshot: Snapshot) -> None:
        self._by_indexer[indexer] = snapshot
        self._used.setdefault(indexer, time.monotonic())

    def release_idle(self, idle_s: float) -> int:
        """Drop the snapshots no query has read for `idle_s` seconds (the next query builds a
        whole one again); returns how many were dropped."""
        cutoff = time.monotonic() - idle_s
        idle = [i for i in list(self._by_indexer.keys()) if self._used.get(i, 0.0) <= cutoff]
        for indexer in idle:
            self._by_indexer.pop(indexer, None)
        return len(idle)

    async def current(
        self,
        indexer: Any,
        generation: int,
        build: Callable[[Snapshot | None], Awaitable[Snapshot]],
        *,
        query: bool = True,
    ) -> Snapshot:
        """The snapshot of `generation`: cached, or built by `build(previous)` (one at a time). A
        call with `query=False` (the background refresh) does not count as a use."""
        if query:
            self._used[indexer] = time.monotonic()
        cached = self.get(indexer, generation)
        if cached is not None:
            return cached
        lock = self._locks.get(indexer)
        if lock is None:
            lock = self._locks[indexer] = asyncio.Lock()
        async with lock:
            cached = self.get(indexer, generation)
            if cached is not None:
                return cached
            snap = await build(self.latest(indexer))
            self.put(indexer, snap)
            return snap
