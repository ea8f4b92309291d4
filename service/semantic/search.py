"""Semantic and hybrid rankings with filters, computed in one reader-thread call.

`NoteFilter` holds the caller's restrictions (read permission, folders, tags, modification
dates). Vector candidates are fetched nearest first and filtered *before* anything is cut: when
too few notes pass, more neighbours are fetched (k × 4, up to every chunk), so a note the caller
may not read never takes a place in the results, nor does its chunk.

Hybrid: BM25 candidates (the query's words OR-ed, ranked by BM25, same filters) and vector
candidates, `retrieval.hybrid.depth(limit)` of each, fused by `retrieval.hybrid.fuse` with the
text weight of the query's `specificity` (how rare its words are in the index).
"""

from __future__ import annotations

import dataclasses
import math
import re
import sqlite3
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from service.retrieval import hybrid, text
from service.retrieval import tags as tag_q
from service.retrieval.stopwords import is_stop_word
from service.retrieval.unspaced import pieces, searched
from service.semantic.engine import ChunkRow, SemanticEngine, chunk_rows
from service.semantic.engine import with_text as chunk_text

if TYPE_CHECKING:
    import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)
MEMO_MAX = 50_000  # words whose note count `specificity` remembers
_NOTES = "\x00notes"  # the memo's entry for the number of notes (no word has this form)


@dataclass
class NoteFilter:
    can_read: Callable[[str], bool]
    folders: list[str] = field(default_factory=list)  # vault-relative; [] = everywhere
    tags: list[str] = field(default_factory=list)  # normalised; all must match (nested: a matches a/b)
    after: float | None = None  # mtime >= after
    before: float | None = None  # mtime < before
    exclude: set[int] = field(default_factory=set)  # note ids
    also: Callable[[ChunkRow], bool] | None = None  # a further condition (rag_search's note dates)

    def accepts(self, row: ChunkRow) -> bool:
        if row.note_id in self.exclude:
            return False
        if self.folders and not any(f == "" or row.path.startswith(f + "/") for f in self.folders):
            return False
        if self.after is not None and row.mtime < self.after:
            return False
        if self.before is not None and row.mtime >= self.before:
            return False
        if self.tags:
            have = [t.lower() for t in row.tags]
            for want in self.tags:
                if not any(h == want or h.startswith(want + "/") for h in have):
                    return False
        if self.also is not None and not self.also(row):
            return False
        return self.can_read(row.path)


@dataclass(slots=True)
class ChunkHit:  # not frozen, as ChunkRow: hundreds a call
    row: ChunkRow
    similarity: float


def passes_all(keep: NoteFilter) -> bool:
    """Whether `keep` accepts every indexed note: no folder, tag, date, exclusion or further
    condition, and a `can_read` that no rule lets deny a visible note (`Readable.everything`)."""
    narrowed = keep.folders or keep.tags or keep.exclude or keep.also
    dated = keep.after is not None or keep.before is not None
    return not (narrowed or dated) and bool(getattr(keep.can_read, "everything", False))


def nearest(
    engine: SemanticEngine,
    conn: sqlite3.Connection,
    vault_id: str,
    query: np.ndarray[Any, Any],
    notes: int,
    keep: NoteFilter,
    model: str,
    *,
    text: bool = True,
    rows: bool = True,
) -> list[ChunkHit]:
    """Chunks nearest `query` that pass `keep`, best first, covering at least `notes` notes
    (or every passing chunk when there are fewer). `text=False`: the rows' texts are left empty
    (`with_text` fills those of the hits shown). `rows=False` with a filter that `passes_all`:
    each row holds its chunk and note ids only (`note_ids`), which is all a fusion reads; the
    caller reads the rows it shows (`hybrid_rows`).

    The filter is a note's (its path, dates, tags): it is asked once per note, and a deeper round
    (k x 4, when too few notes pass) reuses the similarities, rows and answers of the rounds
    before it."""
    top = engine.ranker(conn, vault_id, query, model)
    k = max(64, notes * 4)
    total: int | None = None
    thin = not rows and passes_all(keep)
    found: dict[int, ChunkRow] = {}
    verdict: dict[int, bool] = {}  # note id -> accepted
    while True:
        pairs = top(k)
        todo = [cid for cid, _ in pairs if cid not in found]
        found.update(note_ids(conn, todo) if thin else chunk_rows(conn, todo, text=text))
        hits: list[ChunkHit] = []
        for cid, sim in pairs:
            row = found.get(cid)
            if row is None:
                continue
            ok = True if thin else verdict.get(row.note_id)
            if ok is None:
                ok = verdict[row.note_id] = keep.accepts(row)
            if ok:
                hits.append(ChunkHit(row, sim))
        if len({h.row.note_id for h in hits}) >= notes or len(pairs) < k:
            return hits
        if total is None:
            total = int(conn.execute("SELECT COUNT(*) FROM chunks WHERE vault_id = ?", (vault_id,)).fetchone()[0])
        if k >= total:
            return hits
        k = min(total, k * 4)


def note_ids(conn: sqlite3.Connection, ids: list[int]) -> dict[int, ChunkRow]:
    """Rows of chunks `ids` holding their chunk and note ids only (path, title and the rest
    empty): at 100k notes the ~400 candidate chunks of a hybrid ranking cost ~8.5 ms of CPU as
    whole rows (`chunk_rows`: each joins its note's row, a page read of its own) against ~3.5 ms
    here, from the covering index alone, and the fusion keeps ~22 (`hybrid_rows` reads those)."""
    out: dict[int, ChunkRow] = {}
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ",".join("?" * len(part))
        for cid, nid in conn.execute(
            f"SELECT id, note_id FROM chunks INDEXED BY chunks_rows WHERE id IN ({marks})", part
        ):
            out[cid] = ChunkRow(cid, nid, "", "", 0.0, "", [], None, "")
    return out


def with_text(conn: sqlite3.Connection, hits: list[ChunkHit]) -> list[ChunkHit]:
    """`hits` (from `nearest(..., text=False)`) with their chunks' texts."""
    rows = chunk_text(conn, [h.row for h in hits])
    return [ChunkHit(rows[h.row.chunk_id], h.similarity) for h in hits if h.row.chunk_id in rows]


def hybrid_text(conn: sqlite3.Connection, hits: list[HybridHit]) -> list[HybridHit]:
    """`hits` (from `hybrid_rank`) with the texts of their best chunks."""
    rows = chunk_text(conn, [h.chunk for h in hits if h.chunk is not None])
    return [dataclasses.replace(h, chunk=rows.get(h.chunk.chunk_id)) if h.chunk is not None else h for h in hits]


def hybrid_rows(conn: sqlite3.Connection, hits: list[HybridHit]) -> list[HybridHit]:
    """`hits` (from `fused`, over `nearest(..., rows=False)`) with their best chunks' rows read
    now, texts included (`hybrid_text` then has nothing left to read), and each such hit's path,
    title and mtime from that row, as `fused` takes them. A chunk gone since the ranking leaves
    its note without a chunk (as `hybrid_text` does), with the note's fields; a note gone too
    leaves the hit out."""
    rows = chunk_rows(conn, [h.chunk.chunk_id for h in hits if h.chunk is not None])
    lost = [h.note_id for h in hits if h.chunk is not None and h.chunk.chunk_id not in rows]
    notes = _note_rows(conn, lost) if lost else {}
    out: list[HybridHit] = []
    for h in hits:
        if h.chunk is None:
            out.append(h)
        elif (row := rows.get(h.chunk.chunk_id)) is not None:
            out.append(dataclasses.replace(h, path=row.path, title=row.title, mtime=row.mtime, chunk=row))
        elif (note := notes.get(h.note_id)) is not None:
            out.append(dataclasses.replace(h, path=note.path, title=note.title, mtime=note.mtime, chunk=None))
    return out


def best_per_note(hits: list[ChunkHit]) -> list[ChunkHit]:
    best: dict[int, ChunkHit] = {}
    for h in hits:
        if h.row.note_id not in best or h.similarity > best[h.row.note_id].similarity:
            best[h.row.note_id] = h
    return sorted(best.values(), key=lambda h: (-h.similarity, h.row.path))


def query_words(query: str) -> list[str]:
    """The query's distinct words, lower case, stop words left out as in search_text (BM25 ranks
    notes by how many and how rare; "to" or "the" must not make every note a candidate). A query of
    stop words only keeps them."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))
    return ([w for w in words if not is_stop_word(w)] or words)[:64]


def or_query(query: str) -> str | None:
    """The query's words (`query_words`) OR-ed as FTS5 phrases."""
    words = query_words(query)
    parts = dict.fromkeys(p for w in words for p in pieces(w))  # a question in Chinese: its pairs of characters
    return " OR ".join('"' + searched(p).replace('"', "") + '"' for p in parts) if parts else None


def specificity(conn: sqlite3.Connection, query: str, memo: dict[str, int]) -> float | None:
    """How rare the query's words are in the index: the mean over `query_words` of BM25's inverse
    document frequency, log((N - n + 0.5) / (n + 0.5) + 1), divided by log(N + 1) (its value for
    a word in no note), so 0..1 whatever the number of notes N (n: notes holding the word).
    `memo` keeps N and each word's n (a word common in every vault costs milliseconds to count);
    the caller clears it when the index changes. None for a query without words."""
    words = query_words(query)
    if not words:
        return None
    if len(memo) > MEMO_MAX:
        memo.clear()
    total = memo.get(_NOTES)
    if total is None:
        total = memo[_NOTES] = int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])
    if total <= 0:
        return None
    out = 0.0
    for w in words:
        n = memo.get(w)
        if n is None:
            phrase = '"' + searched(w).replace('"', "") + '"'
            n = memo[w] = int(
                conn.execute("SELECT count(*) FROM fts_words WHERE fts_words MATCH ?", (phrase,)).fetchone()[0]
            )
        out += min(1.0, math.log((total - n + 0.5) / (n + 0.5) + 1) / math.log(total + 1))
    return out / len(words)


def text_candidates(conn: sqlite3.Connection, vault_id: str, query: str, keep: NoteFilter, depth: int) -> TextSide:
    """The first `depth` BM25 candidates of the query's words OR-ed that pass `keep` (no
    specificity), and whether they are every note that does (`TextSide.complete`)."""
    expr = or_query(query)
    if expr is None:
        return TextSide([], None, complete=True)
    if not (keep.tags or keep.after is not None or keep.before is not None or keep.exclude or keep.also):
        hits, more = text.page(conn, vault_id, expr, keep.folders, "relevance", keep.can_read, 0, depth)
        return TextSide(hits, None, complete=not more)
    found = text.all_hits(conn, vault_id, expr, keep.folders, "relevance", keep.can_read)
    rows = _note_rows(conn, [h.note_id for h in found])
    kept = [h for h in found if h.note_id in rows and keep.accepts(rows[h.note_id])]
    return TextSide(kept[:depth], None, complete=len(kept) <= depth)


def _note_rows(conn: sqlite3.Connection, ids: list[int]) -> dict[int, ChunkRow]:
    import json

    out: dict[int, ChunkRow] = {}
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ",".join("?" * len(part))
        for r in conn.execute(f"SELECT id, path, title, mtime, folder, tags FROM notes WHERE id IN ({marks})", part):
            out[int(r[0])] = ChunkRow(
                0, int(r[0]), str(r[1]), str(r[2]), float(r[3]), str(r[4]), list(json.loads(r[5] or "[]")), None, ""
            )
    return out


@dataclass(slots=True)
class HybridHit:  # not frozen, as ChunkRow
    note_id: int
    path: str
    title: str
    mtime: float
    score: float
    chunk: ChunkRow | None
    similarity: float | None
    text_rank: int | None
    vector_rank: int | None


@dataclass(frozen=True, slots=True)
class TextSide:
    """Hybrid's text half: the BM25 candidates, the query's `specificity`, and whether the
    candidates are every note holding one of the words (`complete`: a note outside them holds
    none, and `hybrid.fuse` gives it no text score)."""

    hits: list[text.TextHit]
    specificity: float | None
    complete: bool = False


def text_side(
    conn: sqlite3.Connection, vault_id: str, query_text: str, keep: NoteFilter, depth: int, memo: dict[str, int]
) -> TextSide:
    """`depth` BM25 candidates of `query_text` that pass `keep`, and its specificity (`memo`: the
    engine's word counts, `ScanCache.doc_freq`)."""
    return dataclasses.replace(
        text_candidates(conn, vault_id, query_text, keep, depth), specificity=specificity(conn, query_text, memo)
    )


def hybrid_rank(
    engine: SemanticEngine,
    conn: sqlite3.Connection,
    vault_id: str,
    query_text: str,
    query: np.ndarray[Any, Any],
    limit: int,
    keep: NoteFilter,
    model: str,
) -> list[HybridHit]:
    """Notes by fused score; their chunks' texts are not read (`hybrid_text` adds them). Both
    halves on `conn`: the reference the tools' composition answers as (search_hybrid and
    graphrag_query run `text_side` and `nearest` side by side on two readers, then `fused`;
    `service.tools.search.readers.hybrid_halves`)."""
    depth = hybrid.depth(limit)
    texts = text_side(conn, vault_id, query_text, keep, depth, engine.cache.doc_freq)
    return fused(texts, nearest(engine, conn, vault_id, query, depth, keep, model, text=False))


def fused(
    texts: TextSide, chunks: list[ChunkHit], limit: int | None = None, unembedded: Collection[int] = ()
) -> list[HybridHit]:
    """The text and vector candidates fused (`retrieval.hybrid.fuse`, the text weight of the
    query's specificity), best first; a note found by its words only has no chunk. `limit`: only
    the first so many hits are built (search_hybrid keeps ~22 of ~500 candidates). `unembedded`:
    the text hits with no vector yet (`without_vectors`), ranked by their words alone."""
    by_chunk = {h.row.chunk_id: h for h in chunks}
    ranked = hybrid.fuse(
        [hybrid.TextCandidate(t.note_id, t.score) for t in texts.hits],
        [hybrid.ChunkCandidate(h.row.note_id, h.row.chunk_id, h.similarity) for h in chunks],
        text_weight=hybrid.text_weight(texts.specificity),
        unembedded=unembedded,
        text_complete=texts.complete,
    )
    by_note = {t.note_id: t for t in texts.hits}  # a note found by its words only: the text hit has its fields
    out: list[HybridHit] = []
    for f in ranked:
        if limit is not None and len(out) >= limit:
            break
        hit = by_chunk.get(f.best_chunk) if f.best_chunk is not None else None
        if hit is not None:
            row = hit.row
            out.append(
                HybridHit(
                    f.note_id, row.path, row.title, row.mtime, f.score, row, hit.similarity, f.text_rank, f.vector_rank
                )
            )
        elif (t := by_note.get(f.note_id)) is not None:
            out.append(HybridHit(f.note_id, t.path, t.title, t.mtime, f.score, None, None, f.text_rank, f.vector_rank))
    return out


def without_vectors(conn: sqlite3.Connection, note_ids: list[int], model: str) -> set[int]:
    """Of `note_ids`, the notes none of whose chunks has a vector of `model` yet (a note written
    since the embedding job last ran, chunked or not)."""
    with_vectors: set[int] = set()
    for i in range(0, len(note_ids), 500):
        part = note_ids[i : i + 500]
        marks = ",".join("?" * len(part))
        with_vectors.update(
            int(r[0])
            for r in conn.execute(
                "SELECT DISTINCT c.note_id FROM chunks c JOIN embeddings e INDEXED BY embeddings_keys "
                f"ON e.model = ? AND e.hash = c.hash WHERE c.note_id IN ({marks})",
                [model, *part],
            )
        )
    return set(note_ids) - with_vectors


def normalise_tags(tags: list[str] | None) -> list[str]:
    return [tag_q.normalize(t).lower() for t in tags or []]
