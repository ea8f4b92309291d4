"""The chunk rows of the index: which notes need chunking, writing their chunks, which chunk
texts still need a vector, and storing vectors (all plain SQL; callers run these in the
database's reader or writer thread).

Chunks are keyed on (note id, position) with the hash of their embedded text. Writing a note's
new chunks keeps every row whose position and hash are unchanged (its vector stays), replaces
the others and drops positions past the end. Vectors live in `embeddings` by (model, hash), so
a note moved or renamed to a new row finds the vectors of its unchanged chunks there.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from service.obsidian.canvas import not_canvas
from service.ocr.attached import own_text
from service.semantic.chunker import CHUNKER_VERSION, Chunk
from service.storage.scan_cache import scan_cache

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, slots=True)
class Source:
    note_id: int
    etag: str
    title: str
    aliases: list[str]
    tags: list[str]
    properties: dict[str, Any]
    body: str


def _stale_ids(conn: sqlite3.Connection, vault_id: str, limit: int, after: int) -> list[int]:
    return [
        int(r[0])
        for r in conn.execute(
            "SELECT n.id FROM notes n LEFT JOIN chunk_sources s ON s.note_id = n.id "
            f"WHERE n.vault_id = ? AND n.id > ? AND {not_canvas('n.path')} AND (s.note_id IS NULL "
            "OR s.etag != n.etag OR s.title != n.title OR s.chunker != ?) ORDER BY n.id LIMIT ?",
            (vault_id, after, CHUNKER_VERSION, limit),
        )
    ]


def stale_notes(conn: sqlite3.Connection, vault_id: str, limit: int, after: int = 0) -> list[Source]:
    """Notes past id `after` whose chunks are missing or were made from other text (or by another
    chunker), in id order.

    The stale ids are found first and only their rows read with their text: joining every
    note's body into the scan made a pass that found nothing cost ~60 ms at 10,000 notes. A
    caller walking the vault passes the last id it got as `after`: from the start each time,
    every page walked again the notes chunked before it (quadratic: at 100,000 notes the first
    pass chunked ~1,100-1,500 chunks/s, most of it this walk)."""
    ids = _stale_ids(conn, vault_id, limit, after)
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        "SELECT n.id, n.etag, n.title, n.aliases, n.tags, n.properties, t.body FROM notes n "
        f"JOIN note_text t ON t.note_id = n.id WHERE n.id IN ({marks}) ORDER BY n.id",
        ids,
    ).fetchall()
    return [
        Source(
            int(r[0]),
            str(r[1]),
            str(r[2]),
            list(json.loads(r[3] or "[]")),
            list(json.loads(r[4] or "[]")),
            dict(json.loads(r[5] or "{}")),
            own_text(str(r[6])),  # chunks of the note's own text, not of its images' (service.ocr.attached)
        )
        for r in rows
    ]


def drop_canvas_chunks(conn: sqlite3.Connection, vault_id: str) -> int:
    """Remove chunks an older build made of canvases (a canvas is searched by its words, not by
    meaning: it is no note); returns the chunk rows removed."""
    canvases = f"SELECT id FROM notes WHERE vault_id = ? AND NOT ({not_canvas()})"
    with scan_cache(conn):  # every note's path, once per process: the writer's cache kept small
        removed = conn.execute(
            f"DELETE FROM chunks WHERE vault_id = ? AND note_id IN ({canvases})", (vault_id, vault_id)
        )
        conn.execute(f"DELETE FROM chunk_sources WHERE note_id IN ({canvases})", (vault_id,))
    return int(removed.rowcount)


def write_chunks(conn: sqlite3.Connection, vault_id: str, notes: list[tuple[Source, list[Chunk]]]) -> int | None:
    """Store each note's chunks (skipping a note changed since it was read); returns the lowest
    chunk id inserted (None: no row was added). Ids are SQLite rowids, not AUTOINCREMENT: a new
    row may take the id of a row just deleted, so the job's floor of "every chunk up to here has a
    vector" comes down to it."""
    lowest: int | None = None
    for src, chunks in notes:
        current = conn.execute("SELECT etag, title FROM notes WHERE id = ?", (src.note_id,)).fetchone()
        if current is None or (str(current[0]), str(current[1])) != (src.etag, src.title):
            continue  # edited or gone meanwhile: the next pass sees it again
        old = {
            int(r[0]): str(r[1])
            for r in conn.execute("SELECT position, hash FROM chunks WHERE note_id = ?", (src.note_id,))
        }
        conn.execute("DELETE FROM chunks WHERE note_id = ? AND position >= ?", (src.note_id, len(chunks)))
        for ch in chunks:
            digest = ch.hash
            if old.get(ch.position) == digest:
                continue
            if ch.position in old:
                conn.execute("DELETE FROM chunks WHERE note_id = ? AND position = ?", (src.note_id, ch.position))
            cur = conn.execute(
                "INSERT INTO chunks(vault_id, note_id, position, heading, heading_path, text, embed_text, hash, "
                "tokens) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    vault_id,
                    src.note_id,
                    ch.position,
                    ch.heading,
                    json.dumps(list(ch.heading_path), ensure_ascii=False),
                    ch.text,
                    ch.embed_text,
                    digest,
                    ch.tokens,
                ),
            )
            added = int(cur.lastrowid or 0)
            lowest = added if lowest is None else min(lowest, added)
        conn.execute(
            "INSERT INTO chunk_sources(note_id, etag, title, chunker) VALUES (?,?,?,?) "
            "ON CONFLICT(note_id) DO UPDATE SET etag = excluded.etag, title = excluded.title, "
            "chunker = excluded.chunker",
            (src.note_id, src.etag, src.title, CHUNKER_VERSION),
        )
    return lowest


def pending(
    conn: sqlite3.Connection, vault_id: str, model: str, limit: int, after: int = 0
) -> list[tuple[int, str, str]]:
    """(chunk id, hash, embed_text) of chunks past id `after` whose text has no vector for `model`
    yet, in id order, each text once. A pass walks on from the last id it got (each chunk is
    looked at once, not once a batch); vectors are looked up in the key-only index."""
    rows = conn.execute(
        "SELECT c.id, c.hash, c.embed_text FROM chunks c LEFT JOIN embeddings e INDEXED BY embeddings_keys "
        "ON e.model = ? AND e.hash = c.hash WHERE c.vault_id = ? AND c.id > ? AND e.hash IS NULL ORDER BY c.id LIMIT ?",
        (model, vault_id, after, limit),
    ).fetchall()
    seen: set[str] = set()
    out = []
    for cid, digest, text in rows:
        if digest not in seen:
            seen.add(digest)
            out.append((int(cid), str(digest), str(text)))
    return out


def has_backlog(conn: sqlite3.Connection, vault_id: str, model: str, after: int = 0) -> bool:
    """Whether a note waits to be chunked or a chunk past id `after` waits for its vector: the
    yes or no of `counts(...).backlog`, without counting every chunk (~0.45 s at 60,000 chunks;
    this is ~20 ms with the embedding job's floor as `after`). The chunks are not walked at all
    while the vault's mark (`save_mark`) holds: after a restart the job has no floor yet, and
    that walk took ~2 s at 100,000 notes in each search by meaning until its first pass ended
    (on the prepared 100k index: 2,140 ms with the walk, 48 ms with the mark, `_stale_ids` the
    rest)."""
    if _stale_ids(conn, vault_id, 1, 0):
        return True
    return not mark_holds(conn, vault_id, model) and bool(pending(conn, vault_id, model, limit=1, after=after))


def _last_change(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM chunk_changes").fetchone()[0])


def pending_from(
    conn: sqlite3.Connection, vault_id: str, model: str, limit: int, after: int = 0
) -> tuple[int, list[tuple[int, str, str]]]:
    """`pending(...)` with the last `chunk_changes` entry read before it: when nothing is
    pending, every chunk had its vector as of that entry (what `save_mark` records)."""
    seq = _last_change(conn)
    return seq, pending(conn, vault_id, model, limit, after)


def _mark_key(vault_id: str) -> str:
    return f"embedded_through:{vault_id}"


def save_mark(conn: sqlite3.Connection, vault_id: str, model: str, seq: int) -> None:
    """Record that every chunk of the vault had a vector for `model` as of change `seq`. Every
    chunk written or dropped and every vector stored or dropped for a chunk's text logs a later
    `chunk_changes` entry (migration 0013's triggers), so while the vault has none past `seq`
    nothing can be missing; kept in `meta` across restarts (`mark_holds`)."""
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (_mark_key(vault_id), json.dumps([model, seq])),
    )


def mark_holds(conn: sqlite3.Connection, vault_id: str, model: str) -> bool:
    """Whether the vault's mark is for `model` and no chunk or vector of the vault changed since:
    two lookups by key, where proving it by the chunks joins each with its vector (~2 s at
    580,000 chunks). The change log only loses entries older than its newest `CHANGES_KEPT`
    (`vectors.prune_changes`), so a change past the mark is never pruned without a newer one left."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_mark_key(vault_id),)).fetchone()
    if row is None:
        return False
    try:
        model_seen, seq = json.loads(row[0])
    except (ValueError, TypeError):
        return False
    if model_seen != model or not isinstance(seq, int):
        return False
    later = "SELECT 1 FROM chunk_changes WHERE seq > ? AND vault_id = ? LIMIT 1"
    return conn.execute(later, (seq, vault_id)).fetchone() is None


def marked_through(conn: sqlite3.Connection, vault_id: str, model: str) -> int | None:
    """The vault's highest chunk id when its mark holds (every chunk has its vector for `model`),
    else None: the embedding job's first pass after a restart starts its walk there instead of
    joining every chunk with its vector (~7 s of CPU at 583,000 chunks beside the searches, each
    of which paid `has_backlog`'s note scan until the pass ended)."""
    return top_chunk_id(conn, vault_id) if mark_holds(conn, vault_id, model) else None


def top_chunk_id(conn: sqlite3.Connection, vault_id: str) -> int:
    row = conn.execute("SELECT MAX(id) FROM chunks WHERE vault_id = ?", (vault_id,)).fetchone()
    return int(row[0] or 0)


def store_vectors(conn: sqlite3.Connection, model: str, hashes: list[str], vectors: np.ndarray[Any, Any]) -> None:
    import numpy as np

    conn.executemany(
        "INSERT OR REPLACE INTO embeddings(model, hash, vector) VALUES (?,?,?)",
        [(model, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in zip(hashes, vectors, strict=True)],
    )


@dataclass(frozen=True, slots=True)
class Counts:
    notes: int
    chunked_notes: int
    chunks: int
    embedded: int

    @property
    def backlog(self) -> int:
        return self.chunks - self.embedded + (self.notes - self.chunked_notes)


def _note_count(conn: sqlite3.Connection, vault_id: str) -> int:
    return int(
        conn.execute(f"SELECT COUNT(*) FROM notes WHERE vault_id = ? AND {not_canvas()}", (vault_id,)).fetchone()[0]
    )


def counts(conn: sqlite3.Connection, vault_id: str, model: str, after: int = 0) -> Counts:
    """Every count `index_status` shows. `after` is a floor the caller knows (every chunk up to
    that id has its vector): only the chunks past it are joined with their vectors, the rest are
    counted off the key (the whole join is ~0.2-0.5 s at 60,000 chunks)."""
    notes = _note_count(conn, vault_id)
    chunked = conn.execute(
        "SELECT COUNT(*) FROM notes n JOIN chunk_sources s ON s.note_id = n.id AND s.etag = n.etag "
        f"AND s.title = n.title AND s.chunker = ? WHERE n.vault_id = ? AND {not_canvas('n.path')}",
        (CHUNKER_VERSION, vault_id),
    ).fetchone()[0]
    below = conn.execute("SELECT COUNT(*) FROM chunks WHERE id <= ? AND vault_id = ?", (after, vault_id)).fetchone()
    total, embedded = conn.execute(
        "SELECT COUNT(*), COUNT(e.hash) FROM chunks c "
        "LEFT JOIN embeddings e INDEXED BY embeddings_keys ON e.model = ? AND e.hash = c.hash "
        "WHERE c.id > ? AND c.vault_id = ?",
        (model, after, vault_id),
    ).fetchone()
    return Counts(int(notes), int(chunked), int(total) + int(below[0]), int(embedded) + int(below[0]))


def settled_counts(conn: sqlite3.Connection, vault_id: str) -> Counts:
    """The counts of a vault whose every note is chunked and every chunk embedded (the job says
    so): two counts off the keys, a few ms at 60,000 chunks."""
    notes = _note_count(conn, vault_id)
    chunks = conn.execute("SELECT COUNT(*) FROM chunks WHERE vault_id = ?", (vault_id,)).fetchone()[0]
    return Counts(notes, notes, int(chunks), int(chunks))


def forget_vault(conn: sqlite3.Connection, vault_id: str) -> None:
    """Drop every chunk of a vault (reindex of embeddings: everything is chunked again; vectors
    stay by hash, so unchanged text is not embedded again unless they are dropped too)."""
    conn.execute("DELETE FROM chunk_sources WHERE note_id IN (SELECT id FROM notes WHERE vault_id = ?)", (vault_id,))
    conn.execute("DELETE FROM chunks WHERE vault_id = ?", (vault_id,))


def drop_vectors(conn: sqlite3.Connection, vault_id: str, model: str) -> None:
    """Forget the vectors of a vault's chunk texts for `model` (they are embedded again)."""
    conn.execute(
        "DELETE FROM embeddings WHERE model = ? AND hash IN (SELECT hash FROM chunks WHERE vault_id = ?)",
        (model, vault_id),
    )


def unused_vectors(conn: sqlite3.Connection) -> int:
    """Delete vectors no chunk uses any more (after a batch of changes has been chunked).

    The keys are found first, through the (model, hash) index alone, and only their rows are
    deleted: one DELETE with the same condition walked every vector row and held the writer
    ~340 ms at 60,000 vectors on each start, where this takes ~15 ms (writes wait meanwhile)."""
    with scan_cache(conn):  # every vector's key and chunk's hash: the writer's cache kept small
        keys = conn.execute(
            "SELECT model, hash FROM embeddings INDEXED BY embeddings_keys WHERE hash NOT IN (SELECT hash FROM chunks)"
        ).fetchall()
    conn.executemany("DELETE FROM embeddings WHERE model = ? AND hash = ?", keys)
    return len(keys)


def mark_complete(conn: sqlite3.Connection, vault_id: str, model: str, settings: str) -> str | None:
    """Record that every chunk of the vault has a vector for `model`; returns the model recorded
    before, after dropping its vectors when no vault needs them any more."""
    row = conn.execute("SELECT model FROM embedding_state WHERE vault_id = ?", (vault_id,)).fetchone()
    conn.execute(
        "INSERT INTO embedding_state(vault_id, model, settings, updated_at) VALUES (?,?,?,?) "
        "ON CONFLICT(vault_id) DO UPDATE SET model = excluded.model, settings = excluded.settings, "
        "updated_at = excluded.updated_at",
        (vault_id, model, settings, time.time()),
    )
    previous = str(row[0]) if row is not None else None
    if previous is not None and previous != model:
        used = conn.execute("SELECT 1 FROM embedding_state WHERE model = ? LIMIT 1", (previous,)).fetchone()
        if used is None:
            conn.execute("DELETE FROM embeddings WHERE model = ?", (previous,))
    return previous


def complete_model(conn: sqlite3.Connection, vault_id: str) -> tuple[str, str] | None:
    """(model, settings JSON) of the last model every chunk of the vault had a vector for."""
    row = conn.execute("SELECT model, settings FROM embedding_state WHERE vault_id = ?", (vault_id,)).fetchone()
    return (str(row[0]), str(row[1])) if row is not None else None
