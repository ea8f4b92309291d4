"""search domain, readers: how the semantic tools lay their work on the pooled readers.

- `hybrid_halves`: a hybrid ranking's BM25 half and vector half side by side on two readers
  (search_hybrid, graphrag_query, context_for_query), each with its own filter;
- `shown` / `shown_read`: a ranking's page once notes gone from disk are left out, and the page
  read (chunk texts, secret scans) in one reader call while all its files are on disk (`on_disk`);
- `best_chunks`: a page of search_notes' or search_vault's hybrid or semantic mode shown at its
  notes' best chunks.

Touches: the index through `service.semantic.search` (read only); vault files only to check that a
page's notes still exist.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from service.markdown import sections
from service.semantic import search as sem
from service.semantic.engine import Searchable, SemanticEngine
from service.tools.context import ToolContext
from service.tools.search_common import drop_gone, run_ranking
from service.tools.sensitive import excerpts_of, without_secrets
from service.vault.spelling import on_disk as spelled

if TYPE_CHECKING:
    import numpy as np

    from service.retrieval.sensitive import Guard
    from service.retrieval.text import TextHit
    from service.semantic.engine import ChunkRow

R = TypeVar("R")
S = TypeVar("S")


async def shown(
    ctx: ToolContext, ranked: list[R], offset: int, limit: int, path: Callable[[R], str]
) -> tuple[list[R], bool]:
    """The page [offset, offset+limit) of `ranked` once notes gone from disk are left out, and
    whether more follow: only the page's chunk texts are then read and its notes scanned for
    secrets (a long note's scan costs milliseconds, and a ranking holds dozens of notes)."""
    ranked = await drop_gone(ctx, ranked, offset, limit, lambda r: (path(r),))
    return ranked[offset : offset + limit], offset + limit < len(ranked)


def on_disk(root: Path, page: list[R], path: Callable[[R], str]) -> bool:
    """Whether every file of `page` is on disk now (a reader or worker thread)."""
    text = str(root)  # a name the disk spells in NFD is there (`service.vault.spelling`)
    return all(os.path.isfile(os.path.join(text, spelled(text, path(r)))) for r in page)


async def shown_read(
    ctx: ToolContext,
    ranked: list[R],
    offset: int,
    limit: int,
    path: Callable[[R], str],
    read: Callable[[sqlite3.Connection, list[R]], S],
    prepare: Callable[[sqlite3.Connection, list[R]], list[R]] | None = None,
) -> tuple[list[R], bool, S]:
    """`shown` and then `read(conn, page)`, in one reader call while every file of the page is
    on disk (checked there first): a thread and a reader fewer a search, whose wait for each
    grows with the machine's load. When a file is gone, `shown` leaves it out as before.
    `prepare(conn, ranked)`: the ranking as the page is cut from it, made in that same call
    (search_hybrid reads its hits' rows there)."""
    root = ctx.vault.paths.root

    def whole(conn: sqlite3.Connection) -> tuple[list[R], tuple[S] | None]:
        now = ranked if prepare is None else prepare(conn, ranked)
        page = now[offset : offset + limit]
        return now, (read(conn, page),) if on_disk(root, page, path) else None

    ranked, found = await ctx.services.db.run_read(whole)
    if found is not None:
        return ranked[offset : offset + limit], offset + limit < len(ranked), found[0]
    page, more = await shown(ctx, ranked, offset, limit, path)
    return page, more, await ctx.services.db.run_read(lambda conn: read(conn, page))


async def hybrid_halves(
    ctx: ToolContext,
    engine: SemanticEngine,
    use: Searchable,
    vector: np.ndarray[Any, Any] | None,
    query: str,
    depth: int,
    keep: Callable[[], sem.NoteFilter],
    guard: Guard | None,
    *,
    weigh: bool = True,
    rows: bool = True,
) -> tuple[sem.TextSide, list[sem.ChunkHit]]:
    """The two halves of a hybrid ranking side by side on two readers: `depth` BM25 candidates of
    `query` with its specificity (`sem.text_side`; `weigh=False`: the candidates alone), and the
    chunks nearest `vector` covering `depth` notes (`sem.nearest`, texts not read; `rows=False`:
    nor rows, where the filter lets every note pass; `sem.hybrid_rows` reads them). Each half
    filters with its own `keep()` (one filter per reader thread), refusing notes that hold a
    secret under `exclude` when `guard` is given. BM25 runs in SQLite and the first pass in
    numpy, both mostly without the interpreter's lock: at 100k notes ~17 and ~20 ms of CPU,
    which take the longer of the two when a core is free (search_hybrid, graphrag_query and
    context_for_query compose their rankings so; the answer is the one on one connection).
    `vector` None (the model did not answer): no chunks, the words alone."""
    vid = ctx.vault.id
    words, meaning = keep(), keep()

    def by_words(conn: sqlite3.Connection) -> sem.TextSide:
        allowed = words if guard is None else without_secrets(guard, conn, words)
        if not weigh:
            return sem.text_candidates(conn, vid, query, allowed, depth)
        return sem.text_side(conn, vid, query, allowed, depth, engine.cache.doc_freq)

    if vector is None:
        return await run_ranking(ctx, by_words, words=True), []
    near = vector

    def by_meaning(conn: sqlite3.Connection) -> list[sem.ChunkHit]:
        allowed = meaning if guard is None else without_secrets(guard, conn, meaning)
        return sem.nearest(engine, conn, vid, near, depth, allowed, use.model, text=False, rows=rows)

    texts, chunks = await asyncio.gather(run_ranking(ctx, by_words, words=True), run_ranking(ctx, by_meaning))
    return texts, chunks


async def best_chunks(
    ctx: ToolContext, page: list[TextHit], chunks: dict[int, ChunkRow], snippets: dict[int, str]
) -> dict[int, str]:
    """A page of a hybrid or semantic mode (search_notes, search_vault) at its best chunks
    (`semantic.fuse_with_vectors`): a note with one shows that chunk as its snippet (the matching
    chunk text, as search_hybrid; redacted per the vault's mode), and its link opens the chunk's
    heading. Returns each note's obsidian_url."""
    ids = [h.note_id for h in page if h.note_id in chunks]
    shown = await excerpts_of(ctx, ids)
    links: dict[int, str] = {}
    for h in page:
        row = chunks.get(h.note_id)
        if row is not None:
            snippets[h.note_id] = shown.show(h.note_id, row.text)
        anchor = shown.anchor(h.note_id, row.heading) if row is not None else None
        links[h.note_id] = at_heading(ctx, h.path, anchor)
    return links


def at_heading(ctx: ToolContext, path: str, heading: str | None) -> str:
    """The obsidian:// URL of a note, at `heading` (its text as written) when given: spelt as a link
    to it (`sections.link_text`), since Obsidian reads the part after '#' as a link's heading path
    (`## C# tips` as written named the heading 'C', then ' tips' under it)."""
    anchor = sections.link_text(heading) if heading else ""
    return ctx.vault.url(f"{path}#{anchor}" if anchor else path)
