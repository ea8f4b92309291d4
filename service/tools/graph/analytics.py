"""graph domain, analytics: central_notes, shortest_path, find_communities.

Touches: index tables `notes`, `links` (read only, through `service.tools.graph.views`).
The algorithms are `service.graph.analytics` (pure, deterministic; method and costs there and in
docs/tools-guide.md, "Graph analytics"). Every computation runs on the graph of the notes the
caller may read: a denied note is no node, no edge touches it, so scores, counts, paths and
communities are those of a vault without it. Results are checked against the disk before they
are shown (a note deleted meanwhile is left out and the index told). Betweenness and Louvain run
under the call's budget (`[limits] max_eval_seconds`, `views.computed`): past it the answer is
the one reached so far and says `cut`; a cancelled call's work stops at its next source or node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from service.graph import analytics as ga
from service.graph import paths
from service.graph.expand import Step
from service.graph.queries import GraphQueries
from service.tools.context import ToolContext
from service.tools.graph.links import linked_file
from service.tools.graph.views import VIEWS, View, computed
from service.tools.graph_common import LINE_TEXT_DESCRIPTION, LineText, NoteItem, note_item
from service.tools.models import FILE_ADDRESS, NOTE_ADDRESS, Paging, ToolInput, ToolOutput, decode_cursor, page_of
from service.tools.search_common import (
    FOLDER_FIELD,
    FolderArg,
    Partial,
    drop_gone,
    missing,
    partial,
    readable,
    scope,
)
from service.tools.spec import ToolSpec

if TYPE_CHECKING:
    import numpy as np
else:
    from service.numpy_lazy import np  # imported at its first use

Measure = Literal["pagerank", "betweenness"]


def _score(value: float) -> float:
    return float(f"{value:.6g}")


def _budget(ctx: ToolContext) -> float:
    return ctx.services.settings.limits.max_eval_seconds


def pagerank_of(view: View, limit: ga.Limit = ga.NO_LIMIT) -> list[float]:
    return view.graph.memo("pagerank", lambda: ga.pagerank(view.graph, limit=limit).tolist())  # type: ignore[return-value]


def betweenness_of(view: View, sources: int, limit: ga.Limit = ga.NO_LIMIT) -> ga.Betweenness:
    """Memoised, a cut answer too: the pages of one ranking come from the same scores."""
    g = view.graph
    return g.memo(f"betweenness:{sources}", lambda: ga.betweenness(g, max_sources=sources, limit=limit))  # type: ignore[return-value]


def communities_of(view: View, limit: ga.Limit = ga.NO_LIMIT) -> tuple[ga.Communities, list[int]]:
    """The communities and, for each, its links between two members (memoised, a cut answer too)."""

    def make() -> tuple[ga.Communities, list[int]]:
        g = view.graph
        found = ga.communities(g, limit=limit)
        label = np.zeros(len(g), dtype=np.int64)
        for no, group in enumerate(found.groups):
            label[group] = no
        same = label[g.src] == label[g.dst]
        inside = np.bincount(label[g.src][same], minlength=len(found.groups))
        return found, [int(x) for x in inside]

    return view.graph.memo("communities", make)  # type: ignore[return-value]


def _under(path: str, folders: list[str]) -> bool:
    return not folders or any(f == "" or path.startswith(f + "/") for f in folders)


def _ranked(nodes: list[str], scores: list[float], folders: list[str]) -> list[int]:
    """The nodes under `folders` by (-score, path) (nodes are sorted by path), in a worker thread:
    sorting 100k notes with a key per note held the event loop for up to a second."""
    order = np.lexsort((np.arange(len(nodes)), -np.asarray(scores, dtype=np.float64)))
    if folders:
        inside = np.fromiter((_under(p, folders) for p in nodes), dtype=bool, count=len(nodes))
        order = order[inside[order]]
    return [int(i) for i in order.tolist()]


class CentralIn(ToolInput, Paging):
    measure: Measure = Field(
        default="pagerank",
        description="'pagerank' (notes many well-linked notes link to) or 'betweenness' (notes on the "
        "shortest link paths between others: bridges between topics).",
    )
    folder: FolderArg = FOLDER_FIELD
    limit: int = Field(default=20, ge=1, le=1000, description="Page size.")
    max_sources: int = Field(
        default=ga.MAX_SOURCES,
        ge=16,
        le=4096,
        description="betweenness: exact up to this many notes; above, computed from this many source notes "
        "drawn with a fixed seed (same answer every time).",
    )


class CentralItem(NoteItem):
    rank: int = Field(description="1-based rank among the listed notes.")
    score: float = Field(description="PageRank (all notes sum to 1) or normalised betweenness (0..1).")
    links_in: int = Field(description="Notes linking to it (that the caller may read).")
    links_out: int = Field(description="Notes it links to (that the caller may read).")


class CentralOut(ToolOutput, Partial):
    measure: Measure = Field(description="The measure ranked by.")
    items: list[CentralItem] = Field(description="Notes, highest score first (ties by path).")
    notes: int = Field(description="Notes in the link graph the scores were computed on.")
    links: int = Field(description="Distinct links between different notes in that graph.")
    exact: bool = Field(description="False when betweenness was estimated from sampled source notes.")
    cut: bool = Field(
        default=False,
        description="betweenness: the compute budget ([limits] max_eval_seconds) ended it before max_sources "
        "sources; the scores are the estimate from the `sources` done by then.",
    )
    sources: int | None = Field(default=None, description="betweenness: source notes used.")
    seed: int | None = Field(default=None, description="betweenness: seed of the source sample.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


async def central_notes(ctx: ToolContext, args: CentralIn) -> CentralOut:
    folders = scope(ctx, args.folder)
    state = {"t": "central", "m": args.measure, "f": folders, "s": args.max_sources}
    offset = decode_cursor(args.cursor, **state)
    view = await VIEWS.get(ctx)
    g = view.graph
    if args.measure == "pagerank":
        scores = await computed(lambda limit: pagerank_of(view, limit))
        exact, cut, sources, seed = True, False, None, None
    else:
        found = await computed(lambda limit: betweenness_of(view, args.max_sources, limit), _budget(ctx))
        scores, exact, cut = found.scores.tolist(), found.exact, found.cut
        sources, seed = found.sources, found.seed
    order = await computed(lambda _: _ranked(g.nodes, scores, folders))
    ranked = list(enumerate(order, 1))
    ranked = await drop_gone(ctx, ranked, offset, args.limit, paths=lambda r: (g.nodes[r[1]],))
    page, cursor = page_of(ranked, offset, args.limit, **state)
    links_in, links_out = g.degrees()
    items = [
        CentralItem(
            **note_item(ctx, g.nodes[i], view.titles.get(g.nodes[i])),
            rank=rank,
            score=_score(scores[i]),
            links_in=int(links_in[i]),
            links_out=int(links_out[i]),
        )
        for rank, i in page
    ]
    return CentralOut(
        measure=args.measure,
        items=items,
        notes=len(g),
        links=g.links,
        exact=exact,
        cut=cut,
        sources=sources,
        seed=seed,
        next_cursor=cursor,
        partial=partial(ctx),
    )


class PathBetweenIn(ToolInput):
    source: str = Field(description="Start note. " + NOTE_ADDRESS + FILE_ADDRESS)
    target: str = Field(description="End note. " + NOTE_ADDRESS + FILE_ADDRESS)
    directed: bool = Field(
        default=False, description="Follow links only from the linking note to the linked one (default: either way)."
    )


class HopItem(BaseModel):
    source: str = Field(description="The note the hop leaves.")
    target: str = Field(description="The note it reaches.")
    direction: Literal["outlink", "backlink"] = Field(
        description="'outlink': source links to target; 'backlink': target links to source."
    )
    line: int | None = Field(default=None, description="1-based line of the link in the linking note.")
    text: str | None = Field(default=None, description=LINE_TEXT_DESCRIPTION)


class PathBetweenOut(ToolOutput, Partial):
    source: str = Field(description="The start note (or canvas, base, attachment).")
    target: str = Field(description="The end note (or canvas, base, attachment).")
    directed: bool = Field(description="Whether links were followed in their direction only.")
    found: bool = Field(description="False when no chain of links joins the two notes.")
    length: int | None = Field(default=None, description="Links on the path (0: the same note).")
    notes: list[NoteItem] = Field(description="The notes along the path, start to end.")
    hops: list[HopItem] = Field(description="Each link along the path, with the linking line.")


async def _hop(ctx: ToolContext, step: Step) -> HopItem:
    linking, linked = (step.source, step.target) if step.direction == "outlink" else (step.target, step.source)
    edges = await GraphQueries(ctx.services.db).outlinks(ctx.vault.id, linking)
    edge = next((e for e in edges if e.target_path == linked), None)
    line = text = None
    if edge is not None:
        line, text = edge.line + 1, LineText(ctx).get(linking, edge.line, edge.target_raw)
    return HopItem(source=step.source, target=step.target, direction=step.direction, line=line, text=text)


async def _links_of_files(
    ctx: ToolContext, view: View, ends: list[str], crossed: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """The links (linking, linked) of the path's ends that are no notes (a canvas, a base, an
    image): their own links out to notes of the view (a canvas's), and the view's notes, the
    canvases `crossed` joins (or the other end) linking to them."""
    files = [p for p in dict.fromkeys(ends) if not ga.is_note(p)]
    if not files:
        return []
    q = GraphQueries(ctx.services.db)
    known = set(view.graph.index) | set(ends) | {p for link in crossed for p in link}
    links = [(e.source, e.target_path) for e in await q.backlinks(ctx.vault.id, files)]
    for f in files:
        links += [(f, e.target_path) for e in await q.outlinks(ctx.vault.id, f)]
    return [(a, b) for a, b in links if a in known and b is not None and b in known and a != b]


async def shortest_path(ctx: ToolContext, args: PathBetweenIn) -> PathBetweenOut:
    start = (await linked_file(ctx, args.source)).rel
    end = (await linked_file(ctx, args.target)).rel
    view = await VIEWS.get(ctx)
    g = view.graph
    steps = None
    crossed = paths.canvas_links(await VIEWS.links(ctx), g, readable(ctx))  # canvases in the middle
    extra = crossed + await _links_of_files(ctx, view, [start, end], crossed)
    if (start in g.index or extra) and (end in g.index or extra):
        steps = await computed(lambda _: paths.shortest_path(g, start, end, args.directed, extra))
    if steps is not None and await missing(ctx, {s.target for s in steps}):
        steps = None  # a note on the path is gone from disk: the index catches up, the path is not there
    if steps is None:
        return PathBetweenOut(
            source=start, target=end, directed=args.directed, found=False, notes=[], hops=[], partial=partial(ctx)
        )
    along = [start, *(s.target for s in steps)]
    return PathBetweenOut(
        source=start,
        target=end,
        directed=args.directed,
        found=True,
        length=len(steps),
        notes=[NoteItem(**note_item(ctx, p, view.titles.get(p))) for p in along],
        hops=[await _hop(ctx, s) for s in steps],
        partial=partial(ctx),
    )


class CommunitiesIn(ToolInput, Paging):
    min_size: int = Field(default=2, ge=1, description="Leave out communities with fewer notes.")
    members: int = Field(default=5, ge=1, le=100, description="Most central notes shown per community.")
    limit: int = Field(default=20, ge=1, le=1000, description="Page size.")


class MemberItem(NoteItem):
    score: float = Field(description="The note's PageRank in the whole graph.")


class CommunityItem(BaseModel):
    id: int = Field(description="1-based number of the community, largest first (ties by first path).")
    size: int = Field(description="Notes in the community.")
    links_inside: int = Field(description="Distinct links between two notes of the community.")
    central: list[MemberItem] = Field(description="Its most central notes (PageRank), best first.")


class CommunitiesOut(ToolOutput, Partial):
    items: list[CommunityItem] = Field(description="Communities of at least min_size notes, largest first.")
    total: int = Field(description="Communities of at least min_size notes.")
    notes: int = Field(description="Notes in the link graph (each in exactly one community).")
    modularity: float = Field(description="Modularity of the whole partition (higher: denser communities).")
    method: str = Field(description="The algorithm: 'louvain' on the undirected link graph.")
    cut: bool = Field(
        default=False,
        description="The compute budget ([limits] max_eval_seconds) ended the moves early: the partition "
        "reached by then (valid, each note in one community, less refined).",
    )
    seed: int = Field(description="Seed of the node order (same vault, same communities).")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


async def find_communities(ctx: ToolContext, args: CommunitiesIn) -> CommunitiesOut:
    state = {"t": "communities", "n": args.min_size, "k": args.members}
    offset = decode_cursor(args.cursor, **state)
    view = await VIEWS.get(ctx)
    g = view.graph
    found, inside = await computed(lambda limit: communities_of(view, limit), _budget(ctx))
    ranks = await computed(lambda limit: pagerank_of(view, limit))
    listed = [(no, grp) for no, grp in enumerate(found.groups, 1) if len(grp) >= args.min_size]
    page, cursor = page_of(listed, offset, args.limit, **state)
    items: list[CommunityItem] = []
    for no, group in page:
        best = sorted(group, key=lambda i: (-ranks[i], g.nodes[i]))[: args.members + 5]
        gone = set(await missing(ctx, [g.nodes[i] for i in best]))
        shown = [i for i in best if g.nodes[i] not in gone][: args.members]
        central = [
            MemberItem(**note_item(ctx, g.nodes[i], view.titles.get(g.nodes[i])), score=_score(ranks[i])) for i in shown
        ]
        items.append(CommunityItem(id=no, size=len(group), links_inside=inside[no - 1], central=central))
    return CommunitiesOut(
        items=items,
        total=len(listed),
        notes=len(g),
        modularity=round(found.modularity, 4),
        method="louvain",
        cut=found.cut,
        seed=found.seed,
        next_cursor=cursor,
        partial=partial(ctx),
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="central_notes",
        domain="graph",
        title="Central notes",
        description="The most central notes of the link graph: PageRank (notes well-linked notes point to) or "
        "betweenness (bridges on the shortest paths between others), with scores, optionally in a folder.",
        input_model=CentralIn,
        output_model=CentralOut,
        handler=central_notes,
    ),
    ToolSpec(
        name="shortest_path",
        domain="graph",
        title="Shortest link path",
        description="The fewest links joining two notes (either way, or along links only), each hop with its "
        "linking line; found=false when none joins them. A path crosses canvases (as Obsidian's graph view: a "
        "canvas's cards and the notes embedding it); an end may also be a base or an attachment.",
        input_model=PathBetweenIn,
        output_model=PathBetweenOut,
        handler=shortest_path,
    ),
    ToolSpec(
        name="find_communities",
        domain="graph",
        title="Communities of notes",
        description="Groups of notes that link more among themselves than to the rest (Louvain, deterministic), "
        "largest first, each with its size and most central notes.",
        input_model=CommunitiesIn,
        output_model=CommunitiesOut,
        handler=find_communities,
    ),
)
