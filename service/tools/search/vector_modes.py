"""search domain, vector modes: the semantic and hybrid modes of search_vault (`router.py`) and
search_notes (`notes_search.py`), over the rankings of `semantic.py`.

search_vault's semantic mode is search_semantic's ranking in search_vault's items; the hybrid
modes fuse their text (and tag/property) ranking with the vector ranking of the query under the
same folder, tag and date filters (`fuse_with_vectors`), each note at its best chunk
(`readers.best_chunks`). Touches what `semantic.py` touches (read only).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from service.retrieval import hybrid, text
from service.semantic import search as sem
from service.semantic.engine import ChunkRow
from service.tools.context import ToolContext
from service.tools.search.dates import Window
from service.tools.search.semantic import SemanticIn, engine_of, search_semantic
from service.tools.search_common import CappedNotes, readable, run_ranking
from service.tools.sensitive import excerpts, guard_of, without_secrets


async def vault_mode(
    ctx: ToolContext, query: str, tags: list[str] | None, common: dict[str, Any]
) -> tuple[list[dict[str, Any]], str | None, bool, CappedNotes | None]:
    """search_vault's semantic mode: search_semantic's items (fields of search_vault's items,
    the chunk as snippet), next cursor, partial flag and capped notes. `common` may hold the date filters."""
    out = await search_semantic(ctx, SemanticIn(query=query, tags=tags, **common))
    fields = {"path", "title", "obsidian_url", "mtime", "score", "sensitive"}
    found = [{**i.model_dump(include=fields), "snippet": i.chunk} for i in out.items]
    return found, out.next_cursor, out.partial, out.capped


def enabled(ctx: ToolContext) -> bool:
    engine = ctx.services.semantic
    return engine is not None and engine.enabled


async def fuse_with_vectors(
    ctx: ToolContext,
    ranked: list[text.TextHit],
    query: str,
    *,
    want: int,
    folders: list[str],
    tags: list[str] | None,
    restrict: set[int] | None = None,
    vector_only: bool = False,
    window: Window | None = None,
    text_complete: bool,
) -> tuple[list[text.TextHit], dict[int, ChunkRow]]:
    """A text ranking (already filtered by the caller's permissions and filters) fused with the
    vector ranking of `query` under the same folder/tag/date filters (`retrieval.hybrid.fuse`);
    `vector_only`: the vector ranking alone. `text_complete`: the text ranking holds every note
    the query's words find (`fusion.complete`), so a note outside it gets text score 0, as in
    search_hybrid; the text ranking's weight is search_hybrid's too (`hybrid.text_weight` of the
    query's `specificity`). Also returns each note's best chunk."""
    engine = engine_of(ctx)
    keep = sem.NoteFilter(can_read=readable(ctx), folders=folders, tags=sem.normalise_tags(tags))
    if window is not None:
        keep.after, keep.before = window.after, window.before
    vid = ctx.vault.id
    use = await engine.searchable(vid)
    vector = await engine.query_vector(query, use.embedder)
    depth = hybrid.depth(want)

    guard = guard_of(ctx)
    memo = engine.cache.doc_freq  # taken before the reader runs, as search_hybrid's text half takes it

    def compute(conn: sqlite3.Connection) -> tuple[list[sem.ChunkHit], set[int], set[int], float | None]:
        hits = sem.nearest(engine, conn, vid, vector, depth, without_secrets(guard, conn, keep), use.model)
        # Under `exclude` a note holding a secret leaves the text side too, as in search_hybrid.
        secret = excerpts(guard, conn, [h.note_id for h in ranked]).secrets if guard.excludes else set()
        # While the job catches up, a note written since has no vector: ranked by its words alone.
        pending = set() if use.complete else sem.without_vectors(conn, [h.note_id for h in ranked], use.model)
        # How rare the query's words are sets the text ranking's weight, as in search_hybrid.
        rare = None if vector_only else sem.specificity(conn, query, memo)
        return [h for h in hits if restrict is None or h.row.note_id in restrict], secret, pending, rare

    chunks, secret, pending, rare = await run_ranking(ctx, compute)
    if secret:
        ranked = [h for h in ranked if h.note_id not in secret]
    best = {h.row.note_id: h.row for h in sem.best_per_note(chunks)}
    if vector_only:
        return [
            text.TextHit(h.row.note_id, h.row.path, h.row.title, h.row.mtime, h.similarity)
            for h in sem.best_per_note(chunks)
        ], best
    by_note = {h.note_id: h for h in ranked}
    fused = hybrid.fuse(
        [hybrid.TextCandidate(h.note_id, h.score) for h in ranked],
        [hybrid.ChunkCandidate(h.row.note_id, h.row.chunk_id, h.similarity) for h in chunks],
        text_weight=hybrid.text_weight(rare),
        unembedded=pending,
        text_complete=text_complete,
    )
    out: list[text.TextHit] = []
    for f in fused:
        t = by_note.get(f.note_id)
        row = best.get(f.note_id)
        if t is not None:
            out.append(text.TextHit(t.note_id, t.path, t.title, t.mtime, f.score))
        elif row is not None:
            out.append(text.TextHit(row.note_id, row.path, row.title, row.mtime, f.score))
    return out, best
