"""search domain, semantic: search_semantic, search_hybrid, find_similar.

Touches: index tables `chunks`, `embeddings`, the sqlite-vec table of the model, `notes`,
`fts_words` (read only, through `service.semantic`); the embedding model for the query
(`services.semantic`). Every candidate is filtered by read permission, folder, tags and dates
before a page is cut (`semantic.search.NoteFilter`), so a note the caller may not read never
appears as a hit, a similar note or a chunk. Results carry the best chunk's text and an
`obsidian_url` that opens its heading. While the vault's chunks are still being embedded
`complete` is false (notes not embedded yet are missing).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel, Field

from service.errors import EmbeddingUnavailable, ModeUnavailable, NotANote, NoteNotFound, ValidationFailed
from service.rerank.protocol import Reordered, reorder
from service.retrieval import hybrid
from service.semantic import search as sem
from service.semantic.engine import ChunkRow, Searchable, SemanticEngine
from service.tools.context import ToolContext
from service.tools.models import Paging, ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.named_files import READERS, file_kind
from service.tools.search import positions
from service.tools.search.dates import AFTER_FIELD, BEFORE_FIELD, DateArg, stamp
from service.tools.search.readers import at_heading, hybrid_halves, on_disk, shown_read
from service.tools.search_common import (
    FOLDER_FIELD,
    Capped,
    FolderArg,
    Partial,
    capped,
    drop_gone,
    partial,
    query_key,
    readable,
    run_ranking,
    scope,
)
from service.tools.sensitive import Excerpts, guard_of, note_excerpts, without_secrets
from service.tools.spec import ToolSpec
from service.vault.paths import VaultPath

T = TypeVar("T")


class FilterArgs(ToolInput, Paging):
    folder: FolderArg = FOLDER_FIELD
    tags: list[str] | None = Field(default=None, max_length=50, description="Only notes carrying all of these tags.")
    modified_after: DateArg = AFTER_FIELD
    modified_before: DateArg = BEFORE_FIELD
    limit: int = Field(default=10, ge=1, le=200, description="Page size (notes).")


class SemanticIn(FilterArgs):
    query: str = Field(min_length=1, max_length=2000, description="What to look for, in your own words.")


class SimilarIn(FilterArgs):
    path: str = Field(min_length=1, max_length=1024, description="The note to find neighbours of.")


class SemanticHit(BaseModel):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL of the note, at the best chunk's heading.")
    mtime: float = Field(description="Modification time (Unix seconds).")
    score: float = Field(description="Relevance: cosine similarity (semantic) or fused score 0..1 (hybrid).")
    heading: str | None = Field(default=None, description="Heading of the best matching chunk.")
    heading_path: list[str] = Field(
        default_factory=list,
        description="The headings down to the best chunk's section, top level first (tells apart sections "
        "of one name under different headings).",
    )
    chunk: str | None = Field(
        default=None, description="Text of the best matching chunk (secrets redacted per [sensitive])."
    )
    sensitive: bool = Field(default=False, description="The note holds a secret, or the chunk a health/money topic.")


class SemanticOut(ToolOutput, Partial, Capped):
    items: list[SemanticHit] = Field(description="This page of notes, best first.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` (with the same arguments).")
    model: str = Field(description="The embedding model that ranked these results.")
    complete: bool = Field(description="Every chunk of the vault has its vector (false while embedding catches up).")
    stale: bool = Field(
        default=False,
        description="Ranked with the previous model's vectors while the configured model's are being computed.",
    )
    reranked: bool = Field(default=False, description="The configured reranker ordered the leading results.")
    degraded: bool = Field(default=False, description="A reranker is configured but failed: the fused order is kept.")
    by_meaning: bool = Field(
        default=True,
        description="Vectors ranked them too. False (search_hybrid only): the embedding model or provider did not "
        "answer (embedding_unavailable), so they are ranked by their words alone; ask again later for meaning.",
    )


def engine_of(ctx: ToolContext) -> SemanticEngine:
    engine = ctx.services.semantic
    if engine is None or not engine.enabled:
        raise ModeUnavailable(
            "semantic search is off on this server ([embeddings] provider = 'none')",
            details={"provider": "none"},
            hint="Retrying will not help: use search_text, or set [embeddings] provider in the server config "
            "(the default, 'builtin', needs no network).",
        )
    return engine


def note_filter(ctx: ToolContext, args: FilterArgs) -> sem.NoteFilter:
    return sem.NoteFilter(
        can_read=readable(ctx),
        folders=scope(ctx, args.folder),
        tags=sem.normalise_tags(args.tags),
        after=stamp(args.modified_after),
        before=stamp(args.modified_before),
    )


def url(ctx: ToolContext, path: str, heading: str | None) -> str:
    """The note's obsidian:// URL, at `heading` when given (`readers.at_heading`)."""
    return at_heading(ctx, path, heading)


def chunk_hit(ctx: ToolContext, row: ChunkRow, score: float, shown: Excerpts) -> SemanticHit:
    """A result item for the note of chunk `row`, that chunk as its best passage."""
    return SemanticHit(
        path=row.path,
        title=row.title,
        obsidian_url=url(ctx, row.path, shown.anchor(row.note_id, row.heading)),
        mtime=row.mtime,
        score=round(score, 4),
        heading=shown.heading(row.note_id, row.heading),
        heading_path=[shown.show(row.note_id, h) for h in row.heading_path()],
        chunk=shown.show(row.note_id, row.text),
        sensitive=shown.sensitive(row.note_id, row.text, row.tags, row.heading),
    )


def rerank_window(ctx: ToolContext) -> int:
    """How many leading candidates the configured reranker sees (0: none configured)."""
    return ctx.services.rerank.top_n if ctx.services.rerank is not None else 0


async def rerank(ctx: ToolContext, query: str, items: list[T], text: Callable[[T], str]) -> tuple[list[T], Reordered]:
    """`items` (best first) reordered by the configured reranker on `text(item)` — asked only of
    the leading `rerank_window` items, the texts sent out, so they must be redacted already —
    unchanged and `degraded` when it fails; unchanged when none is configured."""
    head = rerank_window(ctx)
    order = await reorder(ctx.services.rerank, query, [text(i) for i in items[:head]] + [""] * (len(items) - head))
    return [items[i] for i in order.order], order


async def _page(
    ctx: ToolContext,
    use: Searchable,
    hits: list[SemanticHit],
    offset: int,
    limit: int,
    key: str,
    order: Reordered | None = None,
) -> SemanticOut:
    hits = await drop_gone(ctx, hits, offset, limit)
    return _out(ctx, use, hits[offset : offset + limit], offset + limit < len(hits), offset, limit, key, order)


def _out(
    ctx: ToolContext,
    use: Searchable,
    items: list[SemanticHit],
    more: bool,
    offset: int,
    limit: int,
    key: str,
    order: Reordered | None = None,
) -> SemanticOut:
    return SemanticOut(
        items=items,
        next_cursor=encode_cursor(offset + limit, t="semantic", q=key) if more else None,
        model=use.model,
        complete=use.complete,
        stale=use.stale,
        reranked=order is not None and order.reranked,
        degraded=order is not None and order.degraded,
        partial=partial(ctx),
    )


def _capped(ctx: ToolContext, args: FilterArgs, out: SemanticOut) -> SemanticOut:
    """`out` saying which notes in the search's scope were searched only up to the index's cut
    (search_semantic, search_hybrid, find_similar: their chunks and words are of the indexed text)."""
    out.capped = capped(ctx, scope(ctx, args.folder), readable(ctx))
    return out


def _key(tool: str, args: FilterArgs, subject: str) -> str:
    return query_key(tool, subject, args.model_dump(exclude={"cursor", "limit", "idempotency_key", "elicit_token"}))


async def search_semantic(ctx: ToolContext, args: SemanticIn) -> SemanticOut:
    keep = note_filter(ctx, args)  # its folders before the mode (`service.tools.search`, ORDER)
    engine = engine_of(ctx)
    key = _key("semantic", args, args.query)
    offset, mark = positions.read(args.cursor, t="semantic", q=key)
    start = 0 if mark is not None else offset  # after a mark (`positions`), the ranking starts past it
    vid = ctx.vault.id
    use = await engine.searchable(vid)
    vector = await engine.query_vector(args.query, use.embedder)
    want = offset + args.limit + 1

    guard = guard_of(ctx)

    def rank(conn: sqlite3.Connection) -> list[sem.ChunkHit]:
        allowed = without_secrets(guard, conn, keep)
        deep = want
        while True:  # after a mark: deeper until the page and one more are found past it
            best = sem.best_per_note(sem.nearest(engine, conn, vid, vector, deep, allowed, use.model, text=False))
            past = positions.after(positions.order(best, positions.of_note), positions.of_note, mark)
            if mark is None or len(past) > args.limit or len(best) < deep:
                # the page, the next one's first note, and spares for notes gone from disk
                return past[: start + 2 * args.limit + 1]
            deep *= 2

    def show(conn: sqlite3.Connection, page: list[sem.ChunkHit]) -> tuple[list[sem.ChunkHit], Excerpts]:
        return sem.with_text(conn, page), note_excerpts(guard, conn, (h.row.note_id for h in page))

    root = ctx.vault.paths.root

    def rank_and_show(
        conn: sqlite3.Connection,
    ) -> tuple[list[sem.ChunkHit], tuple[list[sem.ChunkHit], Excerpts] | None]:
        """The ranking, and the page read on the same reader while its files are all on disk."""
        ranked = rank(conn)
        page = ranked[start : start + args.limit]
        return ranked, show(conn, page) if on_disk(root, page, lambda h: h.row.path) else None

    ranked, read = await run_ranking(ctx, rank_and_show)
    if read is not None:
        more, (found, shown) = start + args.limit < len(ranked), read
    else:  # a file of the page is gone: left out as `_shown` does, the page read again
        _cut, more, (found, shown) = await shown_read(ctx, ranked, start, args.limit, lambda h: h.row.path, show)
    out = _out(ctx, use, [chunk_hit(ctx, h.row, h.similarity, shown) for h in found], more, offset, args.limit, key)
    if more and found:
        out.next_cursor = positions.write(offset + args.limit, positions.of_note(found[-1]), t="semantic", q=key)
    return _capped(ctx, args, out)


async def search_hybrid(ctx: ToolContext, args: SemanticIn) -> SemanticOut:
    scope(ctx, args.folder)  # its folders before the mode (`service.tools.search`, ORDER); readers filter below
    engine = engine_of(ctx)
    key = _key("hybrid", args, args.query)
    offset = decode_cursor(args.cursor, t="semantic", q=key)
    vid = ctx.vault.id
    use = await engine.searchable(vid)
    try:
        vector = await engine.query_vector(args.query, use.embedder)
    except EmbeddingUnavailable:  # the model or provider is down: the words still rank (by_meaning false)
        vector = None
    # At least the reranker's window: each page is cut from the same reranked order (`rag_search`).
    want = max(offset + args.limit + 1, rerank_window(ctx))
    depth = hybrid.depth(want)

    guard = guard_of(ctx)
    # The vector half's candidates without their rows (when no filter needs them): the fusion
    # reads ids and similarities only, and the hits kept read their rows below (`sem.hybrid_rows`).
    texts, chunks = await hybrid_halves(
        ctx, engine, use, vector, args.query, depth, lambda: note_filter(ctx, args), guard, rows=False
    )
    # While the job catches up, a note written since has no vector: ranked by its words alone.
    pending: set[int] = set()
    if vector is None:
        pending = {t.note_id for t in texts.hits}
    elif not use.complete and texts.hits:
        ids = [t.note_id for t in texts.hits]
        pending = await ctx.services.db.run_read(lambda conn: sem.without_vectors(conn, ids, use.model))
    ranked = sem.fused(texts, chunks, 2 * want, pending)  # items for the page and spares (not every candidate)
    reranks = rerank_window(ctx) > 0  # the reranker reads the leading items' texts before the page is cut

    def show(conn: sqlite3.Connection, page: list[sem.HybridHit]) -> tuple[list[sem.HybridHit], Excerpts]:
        return page, note_excerpts(guard, conn, (h.note_id for h in page))

    if reranks:
        read = await ctx.services.db.run_read(lambda conn: show(conn, sem.hybrid_rows(conn, ranked)))
        more, (found, shown) = False, read
    else:
        _cut, more, (found, shown) = await shown_read(
            ctx, ranked, offset, args.limit, lambda h: h.path, show, sem.hybrid_rows
        )
    hits = [
        chunk_hit(ctx, h.chunk, h.score, shown)
        if h.chunk
        else SemanticHit(
            path=h.path,
            title=h.title,
            obsidian_url=url(ctx, h.path, None),
            mtime=h.mtime,
            score=round(h.score, 4),
            heading=None,
            chunk=None,
            sensitive=shown.secret(h.note_id),
        )
        for h in found
    ]
    if not reranks:
        out = _out(ctx, use, hits, more, offset, args.limit, key)
    else:
        hits, order = await rerank(ctx, args.query, hits, lambda h: f"{h.title}\n{h.chunk or ''}")
        out = await _page(ctx, use, hits, offset, args.limit, key, order)
    out.by_meaning = vector is not None
    return _capped(ctx, args, out)


# find_similar compares notes by their embedded chunks: a file that is not one, and what to pass instead.
_SIMILAR_INSTEAD = {
    "canvas": (
        "a canvas",
        "graph_neighbors or get_outlinks list the notes the canvas holds and links to (read_canvas reads its "
        "cards); pass one of them to find_similar.",
    ),
    "base": (
        "an Obsidian base (.base)",
        "query_base lists the notes the base selects; pass one of them to find_similar.",
    ),
    "attachment": ("an attachment", "get_backlinks lists the notes that embed it; pass one of them to find_similar."),
}


async def similar_to(ctx: ToolContext, address: str) -> VaultPath:
    """The note find_similar compares, looked up before the mode is checked, as the graph tools
    look up theirs (`linked_file`: a canvas, base or attachment also by the name an embed gives
    it): another file is `not_a_note` on any server (details.kind and read_with as the note tools
    give them, `service.tools.named_files`), the hint naming the tools that answer for it; a
    folder is `not_a_note`; a name no file has is `note_not_found` with its suggestions (of
    canvases for 'Nope.canvas')."""
    from service.tools.graph.links import linked_file  # here: the graph package imports this module

    vp = await linked_file(ctx, address)
    if vp.rel.lower().endswith(".md"):
        return vp
    kind = file_kind(vp.rel)  # as the note tools name it: 'image', 'pdf', 'drawing' ...
    what, hint = _SIMILAR_INSTEAD.get(kind, _SIMILAR_INSTEAD["attachment"])
    raise NotANote(
        f"{vp.rel!r} is {what}, not a note: find_similar compares notes by meaning",
        details={"path": vp.rel, "kind": kind, "read_with": READERS.get(kind, "read_attachment")},
        hint=hint,
    )


async def find_similar(ctx: ToolContext, args: SimilarIn) -> SemanticOut:
    vp = await similar_to(ctx, args.path)
    keep = note_filter(ctx, args)  # its note and folders before the mode (ORDER)
    engine = engine_of(ctx)
    key = _key("similar", args, vp.rel)
    offset = decode_cursor(args.cursor, t="semantic", q=key)
    vid = ctx.vault.id
    want = offset + args.limit + 1
    use = await engine.searchable(vid)

    guard = guard_of(ctx)

    def compute(conn: sqlite3.Connection) -> tuple[list[sem.ChunkHit], Excerpts] | None:
        row = conn.execute("SELECT id FROM notes WHERE vault_id = ? AND path = ?", (vid, vp.rel)).fetchone()
        if row is None:
            raise NoteNotFound(f"no note at {vp.rel!r}", details={"path": vp.rel})
        vector = engine.note_vector(conn, int(row[0]), use.model)
        if vector is None:
            return None
        keep.exclude.add(int(row[0]))
        found = sem.best_per_note(
            sem.nearest(engine, conn, vid, vector, want, without_secrets(guard, conn, keep), use.model, text=False)
        )[: want + args.limit]  # the page, the next one's first note, and spares for notes gone from disk
        return sem.with_text(conn, found), note_excerpts(guard, conn, (h.row.note_id for h in found))

    computed = await run_ranking(ctx, compute)
    if computed is None:
        raise ValidationFailed(
            f"{vp.rel!r} has no embedded chunks yet",
            details={"path": vp.rel, "reason": "not_embedded"},
            hint="Try again when index_status shows no embedding backlog.",
        )
    found, shown = computed
    hits = [chunk_hit(ctx, h.row, h.similarity, shown) for h in found]
    return _capped(ctx, args, await _page(ctx, use, hits, offset, args.limit, key))


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_semantic",
        domain="search",
        title="Search by meaning",
        description="Vector search over note chunks: finds notes about the query even without shared words. "
        "folder/tags/modified_after/modified_before filters; items carry the best chunk and a link to its heading. "
        "Usually prefer search_hybrid (words and meaning); search_text for exact words or phrases.",
        input_model=SemanticIn,
        output_model=SemanticOut,
        handler=search_semantic,
        tags=("search",),
    ),
    ToolSpec(
        name="search_hybrid",
        domain="search",
        title="Search by words and meaning",
        description="The best first search for a question or topic: BM25 text search and vector search fused "
        "into one ranking, with the best matching chunk and a link to its heading; folder/tags/modified_after/"
        "modified_before filters. Prefer search_text for exact words, phrases or prefix*; search_notes to filter "
        "by tags or properties.",
        input_model=SemanticIn,
        output_model=SemanticOut,
        handler=search_hybrid,
        tags=("search",),
    ),
    ToolSpec(
        name="find_similar",
        domain="search",
        title="Find similar notes",
        description="Notes nearest in meaning to a given note (by its chunk vectors); same filters and items as "
        "search_semantic. For notes linked to it, use get_backlinks / get_outlinks.",
        input_model=SimilarIn,
        output_model=SemanticOut,
        handler=find_similar,
        tags=("search",),
        path_args=("path",),
    ),
)
