"""Snapshots of the index for Bases queries, cached per vault and index generation.

`load_snapshot` reads one vault's notes (path, stat facts, tags, frontmatter) and links from
the index in two queries, and adds the vault's other files (attachments, `.base`, `.canvas`;
the indexer keeps their names) with their stat facts, so `file.ext` filters see every file as
in Obsidian. `SnapshotCache` keeps the last snapshot of each indexer and reuses it while the
indexer's `generation` (bumped by every index write) is unchanged, so a query reads no file
and repeats no SQL unless the vault changed. Runs in a reader thread (`Database.run_read`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import weakref
from typing import Any

from service.bases.snapshot import LinkRow, Record, Snapshot


def load_snapshot(conn: sqlite3.Connection, vault_id: str, root: str, files: list[str], stamp: Any) -> Snapshot:
    records: dict[int, Record] = {}
    loads = json.loads
    for nid, path, size, ctime, mtime, tags, props in conn.execute(
        "SELECT id, path, size, ctime, mtime, tags, properties FROM notes WHERE vault_id = ?", (vault_id,)
    ):
        parsed = loads(props) if props and props != "{}" else {}
        records[nid] = Record(path, size, ctime or mtime, mtime, loads(tags) if tags != "[]" else [], parsed, [])
    for src, target, target_path, alias, embed in conn.execute(
        "SELECT src_id, target_raw, target_path, alias, embed FROM links WHERE vault_id = ? ORDER BY id", (vault_id,)
    ):
        rec = records.get(src)
        if rec is not None and target:
            rec.links.append(LinkRow(target, target_path, alias, bool(embed)))
    out = list(records.values())
    known = {r.path for r in out}
    for rel in files:
        if rel in known or rel.lower().endswith(".md"):
            continue
        try:
            st = os.stat(os.path.join(root, rel))
        except OSError:
            continue
        out.append(Record(rel, st.st_size, getattr(st, "st_birthtime", st.st_ctime), st.st_mtime, [], {}, []))
    out.sort(key=lambda r: r.path)
    return Snapshot(out, stamp)


class SnapshotCache:
    """The latest snapshot per indexer (weakly keyed: a closed vault's snapshot goes with it)."""

    def __init__(self) -> None:
        self._by_indexer: weakref.WeakKeyDictionary[Any, Snapshot] = weakref.WeakKeyDictionary()

    def get(self, indexer: Any, generation: int) -> Snapshot | None:
        snap = self._by_indexer.get(indexer)
        return snap if snap is not None and snap.stamp == generation else None

    def put(self, indexer: Any, snapshot: Snapshot) -> None:
        self._by_indexer[indexer] = snapshot
