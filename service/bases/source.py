"""Snapshots of the index for Bases queries, cached per vault and index generation.

`load_snapshot` reads one vault's notes (path, stat facts, tags, frontmatter) and links from
the index, and adds the vault's other files (attachments, `.base`, `.canvas`; the indexer keeps
their names) with their stat facts, so `file.ext` filters see every file as in Obsidian. Given
the previous snapshot it is incremental: only notes whose etag, times or size changed are read
again (all links are read again when a note was added or removed, since names decide where
links resolve). `SnapshotCache` keeps the last snapshot of each indexer and reuses it while the
indexer's `generation` (bumped by every index write) is unchanged (and drops one no query has
read for a while when asked: `release_idle`), so a query reads no file
and repeats no SQL unless the vault changed; the background refresh of
`service.tools.query_warmup` keeps it current. Runs in a reader thread (`Database.run_read`).
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from service.bases.snapshot import UNSET, Record, Snapshot
from service.gcpause import paused

_NOTES = "SELECT id, path, etag, mtime, ctime, size FROM notes WHERE vault_id = ?"
_CONTENT = "SELECT id, tags, properties FROM notes"
_LINKS = "SELECT src_id, target_raw, target_path, alias, embed, id FROM links"


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
    # Paths interned: the Dataview pages of the same vault hold the same path objects.
    notes = [(r[0], sys.intern(r[1]), *r[2:]) for r in conn.execute(_NOTES, (vault_id,))]
    versions = {str(r[1]): hash((r[2], r[3], r[4], r[5])) for r in notes}
    old = previous.versions if previous is not None else {}
    same_names = previous is not None and len(old) == len(versions) and all(p in old for p in versions)
    stale = [int(r[0]) for r in notes if old.get(r[1]) != versions[r[1]]]
    whole = previous is None or len(stale) > len(notes) // 2
    # Rows are read as they come (no list of every row at once): at 10^5 notes and 10^6 links
    # such lists were hundreds of megabytes the process kept after the build.
    if whole:
        content: Iterable[Any] = conn.execute(_CONTENT + " WHERE vault_id = ?", (vault_id,))
    else:
        content = _chunked(conn, _CONTENT, "id", stale)
    fresh = {int(nid): (tags, props) for nid, tags, props in content}
    kept = previous.by_path if previous is not None else {}
    shared: dict[Any, Any] = {"{}": "{}"}
    paths = {str(r[1]): str(r[1]) for r in notes}
    # A note added or removed may change where other notes' links resolve: then read them all.
    if whole or not same_names:
        link_rows: Iterable[Any] = conn.execute(_LINKS + " WHERE vault_id = ? ORDER BY src_id, id", (vault_id,))
    else:
        link_rows = sorted(_chunked(conn, _LINKS, "src_id", stale), key=lambda r: (r[0], r[5]))
    links: dict[int, tuple[Any, ...]] = {}
    share = shared.setdefault
    flat: list[Any] = []
    owner = -1
    for src, target, target_path, alias, embed, _id in link_rows:
        if src != owner:  # rows come grouped by note: one tuple per note, built once
            if flat:
                links[owner] = tuple(flat)
            owner, flat = src, []
        if target:
            path = paths.get(target_path, target_path) if target_path is not None else None
            alias = share(alias, alias) if alias is not None else None
            flat.extend((share(target, target), path, alias, bool(embed)))
    if flat:
        links[owner] = tuple(flat)
    records: list[Record] = []
    for nid, path, _etag, mtime, ctime, size in notes:
        if nid in fresh:
            tags, props = fresh[nid]
            tag_list = shared.get(("tags", tags))  # one list per tag set (a tuple key: no text equals it)
            if tag_list is None:
                written = json.loads(tags) if tags and tags != "[]" else []
                tag_list = shared["tags", tags] = [share(t, t) for t in written]
            props = share(props or "{}", props or "{}") if len(props or "") < 64 else props
            records.append(Record(paths[path], size, ctime or mtime, mtime, tag_list, props, links.get(nid, ())))
        else:
            rec = kept[path]
            if not same_names:
                rec = Record(rec.path, size, rec.ctime, mtime, rec.tags, rec.raw_props, links.get(nid, ()))
            records.append(rec)
    known = set(paths)
    for rel in files:
        if rel in known or rel.lower().endswith(".md"):
            continue
        try:
            st = os.stat(os.path.join(root, rel))
        except OSError:
            continue
        records.append(Record(rel, st.st_size, getattr(st, "st_birthtime", st.st_ctime), st.st_mtime, [], "{}", ()))
    records.sort(key=lambda r: r.path)
    snap = Snapshot(records, stamp)
    snap.versions = versions
    if previous is not None and same_names and not whole:
        _carry_columns(previous, snap, set(map(int, stale)), notes)
    return snap


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
