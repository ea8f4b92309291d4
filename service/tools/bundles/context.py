"""context bundles domain, context: context_for_query, the best passages for a question in a budget.

Touches: index tables `chunks`, `notes`, `fts_words` and the vectors (read only, through
`service.semantic.search`); the embedding model for the query; the configured reranker, if any
(`services.rerank`); the files of the notes quoted (read, to number the lines of each passage:
`service.tools.bundles.lines`, bounded by `[limits] max_note_bytes`).

Method (docs/semantic.md, "Context for a question"):
1. Notes are ranked as search_hybrid ranks them (BM25 and vector hits fused), after read
   permission, `folder` and `tags` (a note the caller may not read is never a candidate, so it
   takes no place, no budget and no count): DEPTH (100) candidates from each engine, as
   search_hybrid's first page uses, and the best NOTES (40) fused notes offer passages. With
   `[rerank]` configured, the best chunk of each of the leading notes is reranked and the notes
   reordered (`degraded` when it failed).
2. Candidate passages: each ranked note's chunks among the vector hits (a note found by its
   words only offers its chunk sharing most words with the question). Priority of a note's k-th
   best chunk = note score × (chunk similarity / the note's best) × 0.75^k.
3. `service.retrieval.passages.pack` fills the budget: duplicates out, at most `max_per_note`
   chunks a note, neighbouring chunks merged, notes in rank order and chunks in note order; the
   budget (`max_tokens` in the builtin tokenizer's tokens, or `max_bytes` of UTF-8) is never
   exceeded, nor 20 % of `max_response_bytes` of text; if the whole result would still not fit
   the limit (it is sent twice), `left_out` entries and then the last passages are dropped.
   `left_out` says what did not make it and why (`budget`, `per_note_limit`, `duplicate`).

Sensitive content (`service.tools.sensitive`): every chunk text passes through `guard` before it is
reranked, measured or shown: secrets are redacted under the vault's `[sensitive]` mode, and a
passage is `sensitive` when its note holds a secret or it mentions health or money; under
`exclude`, notes holding a secret are no candidates at all.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from dataclasses import replace

from pydantic import BaseModel, Field

from service.embeddings.counting import counter
from service.embeddings.sizes import TokenSizes
from service.embeddings.tokens import tokenizer
from service.errors import ValidationFailed
from service.rerank.protocol import reorder
from service.retrieval import hybrid, passages
from service.semantic import search as sem
from service.semantic.engine import ChunkRow, chunk_rows
from service.tools.bundles.lines import LineRange, line_ranges, reaches
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput
from service.tools.search.readers import hybrid_halves
from service.tools.search.semantic import engine_of, url
from service.tools.search_common import (
    FOLDER_FIELD,
    FolderArg,
    Partial,
    drop_gone,
    partial,
    readable,
    run_ranking,
    scope,
)
from service.tools.sensitive import Excerpts, excerpts, guard_of
from service.tools.spec import ToolSpec

DEFAULT_TOKENS = 2000
NOTES = 40  # notes whose chunks are candidates
DEPTH = 100  # candidates from each engine (BM25, vectors): search_hybrid's for a page of 10 (hybrid.depth)
DECAY = 0.75  # weight of a note's next chunk against its previous one
LEFT_OUT_SHOWN = 25
RESPONSE_SHARE = 0.2  # of max_response_bytes the passages' text may take (the result is sent twice, as JSON and text)
_WORD = re.compile(r"\w+")


class ContextIn(ToolInput):
    query: str = Field(min_length=1, max_length=2000, description="The question to gather context for.")
    max_tokens: int | None = Field(
        default=None, ge=16, le=50_000, description="Budget in tokens (default 2000 when max_bytes is not given)."
    )
    max_bytes: int | None = Field(default=None, ge=64, le=400_000, description="Budget in UTF-8 bytes instead.")
    max_per_note: int = Field(default=3, ge=1, le=20, description="Most passages (chunks) taken from one note.")
    folder: FolderArg = FOLDER_FIELD
    tags: list[str] | None = Field(default=None, max_length=50, description="Only notes carrying all of these tags.")


class ContextPassage(BaseModel):
    path: str = Field(description="Vault-relative path of the note.")
    title: str = Field(description="Note title.")
    heading: str | None = Field(default=None, description="Heading the passage starts under.")
    heading_path: list[str] = Field(
        default_factory=list, description="The headings down to that heading, top level first."
    )
    lines: LineRange | None = Field(default=None, description="Where the passage is in the file (null if not found).")
    obsidian_url: str = Field(description="obsidian:// URL of the note at the passage's heading.")
    text: str = Field(description="The passage.")
    size: int = Field(description="Its size in the budget's unit.")
    rank: int = Field(description="1-based relevance rank of its note.")
    chunks: list[int] = Field(description="Positions (0-based) of the note's chunks merged into it.")
    truncated: bool = Field(description="Only the passage's head fitted the budget.")
    sensitive: bool = Field(description="Mentions health or money: confirm with the user before showing it.")


class LeftOutItem(BaseModel):
    path: str = Field(description="Note of the passage left out.")
    heading: str | None = Field(default=None, description="Its heading.")
    chunk: int = Field(description="Its chunk position.")
    size: int = Field(description="Its size in the budget's unit.")
    reason: str = Field(description="'budget', 'per_note_limit' or 'duplicate'.")


class ContextOut(ToolOutput, Partial):
    passages: list[ContextPassage] = Field(description="In reading order: notes by relevance, passages in note order.")
    unit: str = Field(description="'tokens' or 'bytes'.")
    budget: int = Field(description="The budget.")
    used: int = Field(description="Sum of the passages' sizes (never above budget).")
    left_out: list[LeftOutItem] = Field(description=f"The best {LEFT_OUT_SHOWN} candidates left out, with why.")
    left_out_count: int = Field(description="Candidates left out in all.")
    sensitive_detected: bool = Field(description="Some passage is sensitive.")
    reranked: bool = Field(description="The configured reranker ordered the notes.")
    degraded: bool = Field(description="A reranker is configured but failed: the unreranked order was used.")
    model: str = Field(description="The embedding model of the vector ranking.")
    complete: bool = Field(description="Every chunk of the vault has its vector.")


class TokenMeasure:
    """Sizes in the builtin WordPiece tokenizer's tokens (special tokens excluded); a text's size
    is remembered in `sizes` (the app's, `Services.token_sizes`: bounded), since candidate chunks
    repeat across queries."""

    def __init__(self, sizes: TokenSizes | None = None) -> None:
        self._tok = tokenizer()
        self._count = counter()
        self._sizes = sizes if sizes is not None else TokenSizes()

    def size(self, text: str) -> int:
        return self._sizes.size(text, self._count.count)

    def cut(self, text: str, size: int) -> str:
        enc = self._tok.encode(text, add_special_tokens=False)
        end, words = min(size, len(enc.ids)), enc.word_ids
        while end < len(enc.ids) and end > 1 and words[end] is not None and words[end] == words[end - 1]:
            end -= 1
        while end > 0:
            head = text[: enc.offsets[end - 1][1]].rstrip()
            if self.size(head) <= size:
                return head
            end -= 1
        return ""


class ByteMeasure:
    def size(self, text: str) -> int:
        return len(text.encode())

    def cut(self, text: str, size: int) -> str:
        head = text.encode()[:size].decode(errors="ignore")
        if len(head) < len(text) and not text[len(head)].isspace():
            head = head[: max(head.rfind(" "), head.rfind("\n"), 0)]
        return head.rstrip()


def guard(shown: Excerpts, row: ChunkRow) -> tuple[str, bool]:
    """A chunk's text as it may be shown (secrets redacted under the vault's mode) and whether it
    is sensitive: the one sensitive-content call point of this tool."""
    return shown.show(row.note_id, row.text), shown.sensitive(row.note_id, row.text, row.tags, row.heading)


def _overlap(query: set[str], text: str) -> int:
    return len(query & {w.lower() for w in _WORD.findall(text)})


def candidates(
    conn: sqlite3.Connection, ranked: list[tuple[int, float]], chunks: list[sem.ChunkHit], query: str
) -> list[tuple[ChunkRow, int, float]]:
    """(chunk, note rank, priority) for the chunks of the ranked notes (see the module doc)."""
    hits: dict[int, list[sem.ChunkHit]] = {}
    for h in chunks:
        hits.setdefault(h.row.note_id, []).append(h)
    words = {w.lower() for w in _WORD.findall(query)}
    text_only = [n for n, _ in ranked if n not in hits]
    rows: dict[int, list[ChunkRow]] = {}
    if text_only:
        marks = ",".join("?" * len(text_only))
        ids = [int(r[0]) for r in conn.execute(f"SELECT id FROM chunks WHERE note_id IN ({marks})", text_only)]
        for row in chunk_rows(conn, ids).values():
            rows.setdefault(row.note_id, []).append(row)
    out: list[tuple[ChunkRow, int, float]] = []
    for rank, (note, score) in enumerate(ranked):
        if note in hits:
            mine = sorted(hits[note], key=lambda h: (-h.similarity, h.row.position))
            best = max(mine[0].similarity, 1e-9)
            out += [(h.row, rank, score * max(h.similarity, 0.0) / best * DECAY**k) for k, h in enumerate(mine)]
        elif note in rows:
            row = max(rows[note], key=lambda r: (_overlap(words, r.text), -r.position))
            out.append((row, rank, score))
    return out


async def context_for_query(ctx: ToolContext, args: ContextIn) -> ContextOut:
    if args.max_tokens is not None and args.max_bytes is not None:
        raise ValidationFailed(
            "give max_tokens or max_bytes, not both", details={"field": "max_bytes"}, hint="Drop one of the two."
        )
    # its folders before the mode (`service.tools.search`, ORDER)
    keep = sem.NoteFilter(can_read=readable(ctx), folders=scope(ctx, args.folder), tags=sem.normalise_tags(args.tags))
    engine = engine_of(ctx)
    unit = "bytes" if args.max_bytes is not None else "tokens"
    budget = args.max_bytes if args.max_bytes is not None else args.max_tokens or DEFAULT_TOKENS
    measure: passages.Measure = ByteMeasure() if unit == "bytes" else TokenMeasure(ctx.services.token_sizes)
    vid = ctx.vault.id
    use = await engine.searchable(vid)
    vector = await engine.query_vector(args.query, use.embedder)

    secrets = guard_of(ctx)
    # The halves side by side on two readers (as search_hybrid), each refusing notes that hold a
    # secret under `exclude`; fused with the default text weight.
    side, found = await hybrid_halves(
        ctx, engine, use, vector, args.query, DEPTH, lambda: replace(keep), secrets, weigh=False
    )
    fused = hybrid.fuse(
        [hybrid.TextCandidate(t.note_id, t.score) for t in side.hits],
        [hybrid.ChunkCandidate(h.row.note_id, h.row.chunk_id, h.similarity) for h in found],
        text_complete=side.complete,
    )[:NOTES]
    notes = {f.note_id for f in fused}  # only the ranked notes' chunks are candidates: read their texts

    def texts_of(conn: sqlite3.Connection) -> tuple[list[sem.ChunkHit], Excerpts]:
        ids = [f.note_id for f in fused]
        return sem.with_text(conn, [h for h in found if h.row.note_id in notes]), excerpts(secrets, conn, ids)

    chunks, shown = await run_ranking(ctx, texts_of)
    ranked = [(f.note_id, f.score) for f in fused]
    best = {h.row.note_id: h.row for h in sem.best_per_note(chunks)}
    reranker = ctx.services.rerank
    # Texts (redacted) only for a reranker to read: without one the order stays as it is.
    texts = (
        [f"{best[n].title}\n{guard(shown, best[n])[0]}" if n in best else "" for n, _ in ranked]
        if reranker is not None
        else [""] * len(ranked)
    )
    order = await reorder(reranker, args.query, texts)
    if order.reranked:  # the reranker's order, the fused scores kept in rank order
        ranked = [(ranked[i][0], ranked[pos][1]) for pos, i in enumerate(order.order)]
    limit = ctx.vault.files.max_note_bytes  # a note the index saw over it: its lines read as far as indexed

    def rows_of(conn: sqlite3.Connection) -> tuple[list[tuple[ChunkRow, int, float]], dict[int, int]]:
        return candidates(conn, ranked, chunks, args.query), reaches(conn, [n for n, _ in ranked], limit)

    rows, indexed = await run_ranking(ctx, rows_of)
    flagged: set[int] = set()
    cands: list[passages.Candidate] = []
    redacted: set[str] = set()  # headings shown redacted: a link does not open them
    trails: dict[tuple[str, int], list[str]] = {}  # (path, chunk position) -> heading path as shown
    for row, note_rank, priority in rows:
        trails[row.path, row.position] = [shown.show(row.note_id, h) for h in row.heading_path()]
        text, is_sensitive = guard(shown, row)
        if is_sensitive:
            flagged.add(row.chunk_id)
        heading = shown.heading(row.note_id, row.heading)
        if heading != row.heading and heading is not None:
            redacted.add(heading)
        cands.append(
            passages.Candidate(
                row.note_id, row.path, row.title, note_rank, row.chunk_id, row.position, heading, text, priority
            )
        )
    cands = await drop_gone(ctx, cands, 0, len(cands))
    cap = int(ctx.services.settings.governor.max_response_bytes * RESPONSE_SHARE)
    packed = passages.pack(
        cands, measure, budget, max_per_note=args.max_per_note, min_piece=min(32, budget), byte_cap=cap
    )
    sensitive_chunks = {(c.path, c.position) for c in cands if c.chunk_id in flagged}
    root = ctx.vault.paths.root
    cap = ctx.services.settings.limits.max_indexed_note_chars
    reach = {c.path: indexed.get(c.note_id, 0) + cap for c in cands}
    spans = [(p.path, p.text) for p in packed.passages]
    lines = await asyncio.to_thread(line_ranges, root, spans, reach, limit)
    out = [
        ContextPassage(
            path=p.path,
            title=p.title,
            heading=p.heading,
            heading_path=trails.get((p.path, p.positions[0]), []),
            lines=span,
            obsidian_url=url(ctx, p.path, None if p.heading in redacted else p.heading),
            text=p.text,
            size=p.size,
            rank=p.note_rank + 1,
            chunks=p.positions,
            truncated=p.truncated,
            sensitive=any((p.path, pos) in sensitive_chunks for pos in p.positions),
        )
        for p, span in zip(packed.passages, lines, strict=True)
    ]
    left = [
        LeftOutItem(path=lo.path, heading=lo.heading, chunk=lo.position, size=lo.size, reason=lo.reason)
        for lo in packed.left_out[:LEFT_OUT_SHOWN]
    ]
    result = ContextOut(
        passages=out,
        unit=unit,
        budget=budget,
        used=packed.used,
        left_out=left,
        left_out_count=len(packed.left_out),
        sensitive_detected=any(p.sensitive for p in out),
        reranked=order.reranked,
        degraded=order.degraded,
        model=use.model,
        complete=use.complete,
        partial=partial(ctx),
    )
    return fit(result, ctx.services.settings.governor.max_response_bytes)


def fit(out: ContextOut, limit: int) -> ContextOut:
    """`out` within the response limit (sent as JSON and as text: twice): `left_out` entries go
    first, then passages from the end (the least relevant notes), each counted as left out."""
    target = int(limit * 0.45)
    while len(out.model_dump_json().encode()) > target and (out.left_out or out.passages):
        if out.left_out:
            out.left_out.pop()
            continue
        dropped = out.passages.pop()
        out.used -= dropped.size
        out.left_out_count += 1
    out.sensitive_detected = any(p.sensitive for p in out.passages)
    return out


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="context_for_query",
        domain="bundles",
        title="Gather context for a question",
        description="The best passages for a question packed into a token (max_tokens, default 2000) or byte "
        "(max_bytes) budget, ready to put in a prompt: neighbouring chunks merged, at most max_per_note per note, "
        "notes by relevance, each with path, heading, line range and obsidian_url to cite; left_out says what did "
        "not fit. Prefer rag_search for a ranked list of chunks, search_hybrid to find notes.",
        input_model=ContextIn,
        output_model=ContextOut,
        handler=context_for_query,
        tags=("search",),
    ),
)
