"""graph domain, graphrag: graphrag_query, one ranking from text, vectors and the link graph.

Touches: index tables `notes`, `links`, `chunks`, `fts_words`, the vectors (read only, through
`service.semantic.search` and `service.graph.queries`); the embedding model for the query.

Method (docs/answers.md, "GraphRAG"):
1. Seeds: `search_hybrid`'s ranking of the query (BM25 and vector hits fused), filtered by read
   permission and `folder` before anything is cut; its first `seeds` notes are the seeds.
2. Expansion: from the seeds along outlinks and backlinks, `hops` hops, at most `fan_out` new
   notes per note and hop, readable notes only, best ranked first (`service.graph.expand`).
3. Fusion by score (`evidence`, `fuse`): a note's link evidence is the sum of the hybrid
   scores of the seeds that link to or from it (for a note two hops out, half the scores of the
   notes that reached it), divided by sqrt(1 + its backlinks from readable notes) so that a hub
   every note links to is no evidence. Final score = hybrid score (0..1; the ranking's lowest for
   a note outside it) + `graph_weight` × evidence / the query's best evidence. With the default
   weight (0.08) the graph settles near-ties and lifts a note several top hits link to past
   weaker hits; it cannot bury a clear hybrid winner. `hops = 0` gives search_hybrid's order.
Each result says how it was found (`text_rank`, `vector_rank`, `distance`) and carries the chain
of links from its seed (`link_path`). A note the caller may not read is never a seed, a hop or
a result. Progress is reported after each hop.
Sensitive content (`service.tools.sensitive`), as search_hybrid: each chunk is redacted under the
vault's `[sensitive]` mode and a result is `sensitive` when its note holds a secret or its chunk
mentions health or money; under `exclude` a note holding a secret is never a seed, a hop or a
result (a note the expansion reached is judged, and the expansion runs again without it).
"""

from __future__ import annotations

import functools
import math
import sqlite3

from pydantic import BaseModel, Field

from service.errors import EmbeddingUnavailable
from service.graph.adjacency import LinkGraph
from service.graph.expand import Expansion, OnHop, expand
from service.graph.queries import GraphQueries
from service.markdown.parse import note_title
from service.retrieval.hybrid import depth
from service.retrieval.sensitive import Guard
from service.semantic import search as sem
from service.tools.context import ToolContext
from service.tools.graph.views import VIEWS, call_deadline
from service.tools.models import ToolInput, ToolOutput
from service.tools.search.readers import hybrid_halves
from service.tools.search.semantic import engine_of, url
from service.tools.search_common import (
    FOLDER_FIELD,
    FolderArg,
    Partial,
    Readable,
    drop_gone,
    partial,
    readable,
    run,
    scope,
)
from service.tools.sensitive import Excerpts, excerpts, guard_of, note_excerpts
from service.tools.spec import ToolSpec

GRAPH_WEIGHT = 0.08  # chosen on the Obsidian Help questions: no question worse at Recall@5 or @10 (docs/answers.md)


class GraphRagIn(ToolInput):
    query: str = Field(min_length=1, max_length=2000, description="A natural-language question or topic.")
    limit: int = Field(default=10, ge=1, le=50, description="Notes to return.")
    seeds: int = Field(default=10, ge=1, le=50, description="Top hybrid hits the expansion starts from.")
    hops: int = Field(default=2, ge=0, le=3, description="Links followed from a seed (0: hybrid ranking only).")
    fan_out: int = Field(default=10, ge=1, le=50, description="New notes kept per note and hop (best ranked first).")
    graph_weight: float = Field(
        default=GRAPH_WEIGHT,
        ge=0.0,
        le=2.0,
        description="Weight of the link evidence against the hybrid score (0: search_hybrid's order).",
    )
    folder: FolderArg = FOLDER_FIELD


class LinkHop(BaseModel):
    source: str = Field(description="The note the hop leaves.")
    target: str = Field(description="The note it reaches.")
    direction: str = Field(description="'outlink' (source links to target) or 'backlink' (target links to source).")


class GraphRagHit(BaseModel):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian:// URL of the note (at the best chunk's heading when known).")
    score: float = Field(description="Hybrid score plus the weighted link evidence (higher is better).")
    text_rank: int | None = Field(default=None, description="1-based rank in the text (BM25) list, if there.")
    vector_rank: int | None = Field(default=None, description="1-based rank in the vector list, if there.")
    distance: int | None = Field(default=None, description="Links from its seed (0: a seed; null: not reached).")
    seed: str | None = Field(default=None, description="The seed whose links reached this note.")
    link_path: list[LinkHop] = Field(description="The links from `seed` to this note, in order (empty for a seed).")
    heading: str | None = Field(default=None, description="Heading of the best matching chunk, if any.")
    chunk: str | None = Field(
        default=None, description="Text of the best matching chunk, if any (secrets redacted per [sensitive])."
    )
    sensitive: bool = Field(default=False, description="The note holds a secret, or the chunk a health/money topic.")


class GraphRagOut(ToolOutput, Partial):
    items: list[GraphRagHit] = Field(description="Notes, best first.")
    seeds: list[str] = Field(description="The seed notes, in rank order.")
    reached: int = Field(description="Notes reached by the expansion (seeds included).")
    truncated: bool = Field(description="Some neighbours were left out by fan_out.")
    model: str = Field(description="The embedding model of the vector ranking.")
    complete: bool = Field(description="Every chunk of the vault has its vector.")
    by_meaning: bool = Field(
        default=True,
        description="Vectors ranked the seeds too. False: the embedding model or provider did not answer "
        "(embedding_unavailable), so they are ranked by their words alone; ask again later for meaning.",
    )


def evidence(
    expansion: Expansion, graph: LinkGraph, seeds: list[str], score_of: dict[str, float], backlinks: dict[str, int]
) -> dict[str, float]:
    """Link evidence of the notes of the expansion (seeds included), only those with some: the
    hybrid scores of the seeds that link to or from the note (a seed's own score left out), plus,
    for a note further out, those of the notes one hop nearer that reached it, halved per hop
    beyond the first; divided by sqrt(1 + its backlinks), so a hub every note links to is no
    evidence. A note several good hits link to has the most."""
    direct: dict[str, float] = {}
    for seed in dict.fromkeys(seeds):
        weight = score_of.get(seed, 0.0)
        for other in {o for o, _ in graph.links(seed)}:
            if other != seed and other in expansion.reached:
                direct[other] = direct.get(other, 0.0) + weight
    out: dict[str, float] = {}
    for path, r in expansion.reached.items():
        total = direct.get(path, 0.0)
        if r.distance > 1:
            total += sum(score_of.get(u, 0.0) for u in r.support) * 0.5 ** (r.distance - 1)
        if total > 0:
            out[path] = total / math.sqrt(1 + backlinks.get(path, 0))
    return out


def backlink_counts(graph: LinkGraph, paths: list[str], can_read: Readable) -> dict[str, int]:
    """How many notes the caller may read link to each of `paths` (from the in-memory graph)."""
    if can_read.everything:
        return {p: len(graph.backlinks(p)) for p in paths}
    return {p: sum(1 for s in graph.backlinks(p) if can_read(s)) for p in paths}


def fuse(hybrid: list[tuple[str, float]], links: dict[str, float], weight: float) -> list[tuple[str, float]]:
    """Every note of the hybrid ranking or with link evidence, best first: its hybrid score (the
    lowest of the ranking for a note outside it) plus `weight` × its evidence over the best
    evidence of the query. Equal scores keep the hybrid order (notes outside it: by path)."""
    scores = dict(hybrid)
    floor = min(scores.values(), default=0.0)
    top = max(links.values(), default=0.0)
    for path, value in sorted(links.items()):
        scores[path] = scores.get(path, floor) + weight * value / top
    return sorted(scores.items(), key=lambda kv: -kv[1])


def note_ids(conn: sqlite3.Connection, vid: str, paths: list[str]) -> dict[str, int]:
    """The index ids of the notes at `paths` (those still indexed)."""
    out: dict[str, int] = {}
    for i in range(0, len(paths), 500):
        part = paths[i : i + 500]
        marks = ",".join("?" * len(part))
        sql = f"SELECT path, id FROM notes WHERE vault_id = ? AND path IN ({marks})"
        out.update({str(p): int(n) for p, n in conn.execute(sql, [vid, *part])})
    return out


def secrets_among(guard: Guard, conn: sqlite3.Connection, *, vid: str, paths: list[str]) -> set[str]:
    """Those of `paths` whose notes hold a secret (`service.tools.sensitive.excerpts`)."""
    ids = note_ids(conn, vid, paths)
    found = excerpts(guard, conn, ids.values()).secrets
    return {p for p, n in ids.items() if n in found}


def read_page(
    guard: Guard, conn: sqlite3.Connection, vid: str, hits: list[sem.HybridHit], paths: list[str]
) -> tuple[list[sem.HybridHit], dict[str, int], Excerpts]:
    """The page's hybrid hits with their chunk texts, the ids of the page's notes and what the
    guard says of them (redaction of the chunks, the `sensitive` flags), on one connection."""
    ids = note_ids(conn, vid, paths)
    return sem.hybrid_text(conn, hits), ids, note_excerpts(guard, conn, ids.values())


async def graphrag_query(ctx: ToolContext, args: GraphRagIn) -> GraphRagOut:
    call_deadline(ctx)  # one budget for the whole call: the search, then the graph's build
    folders = scope(ctx, args.folder)  # its folders before the mode (`service.tools.search`, ORDER)
    engine = engine_of(ctx)
    can_read = readable(ctx)
    vid = ctx.vault.id
    use = await engine.searchable(vid)
    try:
        vector = await engine.query_vector(args.query, use.embedder)
    except EmbeddingUnavailable:  # the model or provider is down: the words still rank (as search_hybrid)
        vector = None
    want = max(args.limit, args.seeds)
    # search_hybrid's ranking (`sem.hybrid_rank` on one connection): its halves side by side.
    guard = guard_of(ctx)
    halves = await hybrid_halves(
        ctx,
        engine,
        use,
        vector,
        args.query,
        depth(want),
        lambda: sem.NoteFilter(can_read=can_read, folders=folders),
        guard,
    )
    by_words, by_meaning = halves
    pending: set[int] = set()  # as search_hybrid: a note with no vector yet ranked by its words alone
    if vector is None:
        pending = {t.note_id for t in by_words.hits}
    elif not use.complete and by_words.hits:
        words_ids = [t.note_id for t in by_words.hits]
        pending = await ctx.services.db.run_read(lambda conn: sem.without_vectors(conn, words_ids, use.model))
    hits = sem.fused(by_words, by_meaning, None, pending)
    hybrid = [h.path for h in hits]
    score_of = {h.path: h.score for h in hits}
    seeds = hybrid[: args.seeds]
    queries = GraphQueries(ctx.services.db)
    graph = await VIEWS.links(ctx)

    secret: set[str] = set()  # notes found holding a secret, under `exclude` (never a hop or a result)

    def allowed(path: str) -> bool:
        return (
            (not folders or any(f == "" or path.startswith(f + "/") for f in folders))
            and path not in secret
            and can_read(path)
        )

    async def on_hop(hop: int, count: int) -> None:
        await ctx.progress(hop, args.hops, f"graphrag_query: hop {hop}/{args.hops}, {count} notes reached")

    judged = set(seeds)  # the seeds come from the hybrid ranking, which left such notes out
    report: OnHop | None = on_hop
    while True:
        expansion = await expand(
            seeds,
            graph.links,
            hops=args.hops,
            fan_out=args.fan_out,
            can_read=allowed,
            prefer=lambda p: score_of.get(p, 0.0),
            on_hop=report,
        )
        fresh = [p for p in expansion.reached if p not in judged] if guard.excludes else []
        if not fresh:
            break
        judged.update(fresh)
        found = await run(ctx, functools.partial(secrets_among, guard, vid=vid, paths=fresh))
        if not found:
            break
        # A note reached holds a secret: expand again without it, so that it neither shows nor
        # carries the expansion (its place goes to the next neighbour, as for an unreadable note).
        secret.update(found)
        report = None  # each hop was reported once already
    backlinks = backlink_counts(graph, list(expansion.reached), can_read)
    links = evidence(expansion, graph, seeds, score_of, backlinks) if args.hops else {}
    fused = fuse([(h.path, h.score) for h in hits], links, args.graph_weight)
    fused = await drop_gone(ctx, fused, 0, args.limit, lambda kv: (kv[0],))
    page = fused[: args.limit]
    by_path = {h.path: h for h in hits}
    shown = [by_path[p] for p, _ in page if p in by_path]
    page_paths = [p for p, _ in page]
    texts, ids, verdicts = await run(ctx, lambda conn: read_page(guard, conn, vid, shown, page_paths))
    by_path.update({h.path: h for h in texts})
    titles = await queries.titles(vid, [p for p in page_paths if p not in by_path])
    items: list[GraphRagHit] = []
    for path, score in page:
        hit = by_path.get(path)
        got = expansion.reached.get(path)
        chunk = hit.chunk if hit is not None else None
        nid = ids.get(path, -1)
        items.append(
            GraphRagHit(
                path=path,
                title=hit.title if hit is not None else titles.get(path) or note_title(path),
                obsidian_url=url(ctx, path, verdicts.anchor(nid, chunk.heading) if chunk is not None else None),
                score=round(score, 4),
                text_rank=hit.text_rank + 1 if hit is not None and hit.text_rank is not None else None,
                vector_rank=hit.vector_rank + 1 if hit is not None and hit.vector_rank is not None else None,
                distance=got.distance if got is not None else None,
                seed=got.seed if got is not None else None,
                link_path=[LinkHop(source=s.source, target=s.target, direction=s.direction) for s in got.steps]
                if got is not None
                else [],
                heading=verdicts.heading(nid, chunk.heading) if chunk is not None else None,
                chunk=verdicts.show(nid, chunk.text) if chunk is not None else None,
                sensitive=verdicts.sensitive(nid, chunk.text, chunk.tags, chunk.heading)
                if chunk is not None
                else verdicts.secret(nid),
            )
        )
    return GraphRagOut(
        items=items,
        seeds=seeds,
        reached=len(expansion.reached),
        truncated=expansion.truncated,
        model=use.model,
        complete=use.complete,
        by_meaning=vector is not None,
        partial=partial(ctx),
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="graphrag_query",
        domain="graph",
        title="Search by words, meaning and links",
        description="One ranking from text (BM25), vector and link-graph evidence: search_hybrid's top notes are "
        "expanded along outlinks and backlinks (hops, fan_out) and fused by rank; each note says how it was found "
        "and the link path from its seed. Use for questions whose answer sits in notes linked to the obvious hits; "
        "search_hybrid for a plain search.",
        input_model=GraphRagIn,
        output_model=GraphRagOut,
        handler=graphrag_query,
        tags=("search", "graph"),
    ),
)
