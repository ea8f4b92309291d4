"""search domain, rag: rag_search, the retrieval step of a RAG pipeline (seed 003's contract).

Touches: the same index tables as search_semantic (through `service.semantic`). Returns chunks,
not notes: the passages nearest the question, several per note when they rank so, each with
its note, section, date, tags and position. Filters (`directory_filter`, `date_range`, `tags`)
and read permission apply before `max_results`. A chunk is `sensitive` when its note holds a
secret or the chunk mentions health or money (`service.tools.sensitive`: `[sensitive]` patterns,
`[search] sensitive_terms`, `sensitive_tags`); `sensitive_detected` when any returned chunk is:
the agent should ask before showing or sending it on. Secrets are redacted from `chunk_text`, and
notes holding one left out under `exclude`. `memory_suggestion` proposes a `memory_store` call for
a fact of a kind `[memory] suggest_patterns` names (`service.memory.suggest`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
import sqlite3
from dataclasses import asdict

from pydantic import BaseModel, Field

from service.errors import ValidationFailed
from service.memory.suggest import compile_patterns, suggest
from service.semantic import search as sem
from service.semantic.engine import ChunkRow
from service.tools.context import ToolContext
from service.tools.models import Paging, ToolInput, ToolOutput, encode_cursor
from service.tools.search import positions
from service.tools.search.semantic import engine_of, rerank, rerank_window, url
from service.tools.search_common import Partial, drop_gone, partial, query_key, readable, run_search
from service.tools.sensitive import excerpts, excerpts_of, guard_of, without_secrets
from service.tools.spec import ToolSpec

MAX_CHUNK = 2000
_DAY = re.compile(r"(\d{4}-\d{2}-\d{2})")
# Frontmatter keys that hold a note's creation date (Obsidian templates and plugins write these).
CREATED_KEYS = ("created", "date created", "creation date", "created_at", "created at", "created_on")


class DateRange(BaseModel):
    from_: dt.date | None = Field(default=None, alias="from", description="First day (inclusive).")
    to: dt.date | None = Field(default=None, description="Last day (inclusive).")


class RagIn(ToolInput, Paging):
    query: str = Field(min_length=1, max_length=2000, description="A natural-language question.")
    max_results: int = Field(default=5, ge=1, le=50, description="Chunks to return (page size).")
    limit: int | None = Field(  # type: ignore[assignment]  # Paging's page size, here max_results' other name
        default=None, ge=1, le=50, description="Same as max_results (the page size of the other search tools)."
    )
    directory_filter: list[str] | None = Field(default=None, max_length=20, description="Only these folders.")
    date_range: DateRange | None = Field(
        default=None,
        description="{from, to}: a note matches when its date (a YYYY-MM-DD in its name, else its mtime) or its "
        "creation date (frontmatter `created`, where known) falls in the range.",
    )
    tags: list[str] | None = Field(default=None, max_length=50, description="Only notes with all of these tags.")


class RagChunk(BaseModel):
    chunk_text: str = Field(description="The passage (at most 2000 characters).")
    score: float = Field(description="Cosine similarity to the question.")
    source_file: str = Field(description="Vault-relative path of the note.")
    path: str = Field(description="Same as source_file.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian:// URL of the note at the chunk's section.")
    section: str | None = Field(default=None, description="Heading the chunk is under.")
    heading_path: list[str] = Field(
        default_factory=list, description="The headings down to the chunk's section, top level first."
    )
    date: str = Field(description="The note's date (YYYY-MM-DD: a date in its name, else its mtime).")
    created: str | None = Field(default=None, description="The note's creation date (frontmatter `created`), if known.")
    tags: list[str] = Field(description="The note's tags, with '#'.")
    chunk_index: int = Field(description="Position of the chunk in its note (0-based).")
    sensitive: bool = Field(description="The note holds a secret, or the chunk mentions health or money.")


class MemorySuggestion(BaseModel):
    key: str = Field(description="Suggested memory_store key: the kind of fact and the note's title.")
    value: str = Field(description="Suggested value: the sentence that holds the match.")
    source: str = Field(description="The note it comes from (memory_store's source).")
    kind: str = Field(description="Which [memory] suggest_patterns kind matched (financial, health, commitments...).")
    matched: str = Field(description="The word or mark that matched.")


class RagOut(ToolOutput, Partial):
    results: list[RagChunk] = Field(description="Chunks nearest the question, best first.")
    sensitive_detected: bool = Field(description="Some result is sensitive: confirm with the user before showing it.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for more chunks.")
    model: str = Field(description="The embedding model that ranked these chunks.")
    complete: bool = Field(description="Every chunk of the vault has its vector.")
    reranked: bool = Field(default=False, description="The configured reranker ordered the leading chunks.")
    degraded: bool = Field(default=False, description="A reranker is configured but failed: the vector order is kept.")
    memory_suggestion: MemorySuggestion | None = Field(
        default=None,
        description="A fact in these results worth remembering ([memory] suggest_patterns): ask the user, then "
        "call memory_store with its key, value and source. Nothing is stored by the search.",
    )


def day_in(text: str) -> str | None:
    """The first calendar date written YYYY-MM-DD in `text` ('2026-02-30' is none)."""
    for found in _DAY.finditer(text):
        try:
            return dt.date.fromisoformat(found.group(1)).isoformat()
        except ValueError:
            continue
    return None


def note_date(row: ChunkRow) -> str:
    """A calendar date in the note's file name, else its modification date (UTC)."""
    named = day_in(row.path.rsplit("/", 1)[-1])
    return named or dt.datetime.fromtimestamp(row.mtime, dt.UTC).date().isoformat()


def created_dates(conn: sqlite3.Connection, note_ids: list[int]) -> dict[int, str]:
    """The creation dates (YYYY-MM-DD) of those notes whose frontmatter gives one (`CREATED_KEYS`)."""
    out: dict[int, str] = {}
    keys = ",".join("?" * len(CREATED_KEYS))
    for i in range(0, len(note_ids), 500):
        part = note_ids[i : i + 500]
        sql = (
            "SELECT note_id, value_text FROM note_properties WHERE list_index IS NULL"
            f" AND note_id IN ({','.join('?' * len(part))}) AND lower(key) IN ({keys})"
        )
        for nid, value in conn.execute(sql, [*part, *CREATED_KEYS]):
            found = _DAY.match(str(value or "").strip())
            day = day_in(found.group(1)) if found is not None else None
            if day is not None:
                out.setdefault(int(nid), day)
    return out


def heading_paths(conn: sqlite3.Connection, chunk_ids: list[int]) -> dict[int, list[str]]:
    """The heading paths of these chunks (`chunks.heading_path`, top level first)."""
    if not chunk_ids:
        return {}
    marks = ",".join("?" * len(chunk_ids))
    out: dict[int, list[str]] = {}
    for cid, raw in conn.execute(f"SELECT id, heading_path FROM chunks WHERE id IN ({marks})", chunk_ids):
        try:
            path = json.loads(raw or "[]")
        except ValueError:
            path = []
        out[int(cid)] = [str(x) for x in path] if isinstance(path, list) else []
    return out


def page_size(args: RagIn) -> int:
    """`max_results`, or `limit` when that is given instead (both: they must agree)."""
    if args.limit is None:
        return args.max_results
    if "max_results" in args.model_fields_set and args.max_results != args.limit:
        raise ValidationFailed(
            "`limit` and `max_results` are the same page size: give one",
            details={"field": "limit", "limit": args.limit, "max_results": args.max_results},
        )
    return args.limit


async def rag_search(ctx: ToolContext, args: RagIn) -> RagOut:
    first, last = (args.date_range.from_, args.date_range.to) if args.date_range else (None, None)
    if first is not None and last is not None and first > last:
        raise ValidationFailed("date_range: `from` is after `to`", details={"field": "date_range"})

    low, high = first.isoformat() if first else "", last.isoformat() if last else "~"

    def in_range(day: str | None) -> bool:
        return day is not None and low <= day <= high

    keep = sem.NoteFilter(
        can_read=readable(ctx),
        # An unknown folder: note_not_found naming this tool's argument (search_common.scope names `folder`).
        folders=sorted({ctx.folder(raw, field="directory_filter").rel for raw in args.directory_filter or []}),
        tags=sem.normalise_tags(args.tags),
    )
    engine = engine_of(ctx)  # after the arguments and the folders they name (`service.tools.search`, ORDER)
    size = page_size(args)
    key = query_key(
        "rag", args.model_dump(exclude={"cursor", "max_results", "limit", "idempotency_key", "elicit_token"})
    )
    offset, mark = positions.read(args.cursor, t="rag", q=key)
    reranks = rerank_window(ctx) > 0
    if reranks:
        mark = None  # a reranked order is not by similarity: its pages keep to the offset
    vid = ctx.vault.id
    use = await engine.searchable(vid)
    vector = await engine.query_vector(args.query, use.embedder)
    # The reranker reorders the leading `rerank_window` candidates: every page asks for at least
    # that many, so each page is cut from the same reranked order (a page asking for fewer had
    # the reranker order a shorter list, and the pages repeated and skipped chunks).
    want = max(offset + size + 1, rerank_window(ctx))

    guard = guard_of(ctx)
    created: dict[int, str] = {}  # the creation dates of the notes looked at

    def compute(conn: sqlite3.Connection) -> list[sem.ChunkHit]:
        allowed = keep
        if args.date_range is not None:
            judged: set[int] = set()

            def dated(row: ChunkRow) -> bool:
                if row.note_id not in judged:  # once per note
                    judged.add(row.note_id)
                    created.update(created_dates(conn, [row.note_id]))
                return in_range(note_date(row)) or in_range(created.get(row.note_id))

            allowed = dataclasses.replace(keep, also=dated)
        allowed = without_secrets(guard, conn, allowed)
        deep = want
        while True:  # after a mark: deeper until the page and one more are found past it
            hits = sem.nearest(engine, conn, vid, vector, deep, allowed, use.model)[:deep]
            every = len(hits) < deep  # no chunk left below these
            if not reranks:
                hits = positions.after(positions.order(hits, positions.of_chunk), positions.of_chunk, mark)
            if mark is None or len(hits) > size or every:
                break
            deep *= 2
        created.update(created_dates(conn, sorted({h.row.note_id for h in hits} - created.keys())))
        return hits

    found = await run_search(ctx, compute)
    head = await excerpts_of(ctx, [h.row.note_id for h in found[: rerank_window(ctx)]])
    hits, order = await rerank(
        ctx, args.query, found, lambda h: f"{h.row.title}\n{head.show(h.row.note_id, h.row.text)}"
    )
    start = 0 if mark is not None else offset  # after a mark, the hits are those past it
    hits = await drop_gone(ctx, hits, start, size, lambda h: (h.row.path,))
    window = hits[start : start + size]
    guard_ids = [h.row.note_id for h in window]
    shown, heads = await run_search(
        ctx, lambda conn: (excerpts(guard, conn, guard_ids), heading_paths(conn, [h.row.chunk_id for h in window]))
    )
    page = [
        RagChunk(
            chunk_text=shown.show(h.row.note_id, h.row.text)[:MAX_CHUNK],
            score=round(h.similarity, 4),
            source_file=h.row.path,
            path=h.row.path,
            title=h.row.title,
            obsidian_url=url(ctx, h.row.path, shown.anchor(h.row.note_id, h.row.heading)),
            section=shown.heading(h.row.note_id, h.row.heading),
            heading_path=[shown.show(h.row.note_id, x) for x in heads.get(h.row.chunk_id, [])],
            date=note_date(h.row),
            created=created.get(h.row.note_id),
            tags=["#" + t for t in h.row.tags],
            chunk_index=h.row.position,
            sensitive=shown.sensitive(h.row.note_id, h.row.text, h.row.tags, h.row.heading),
        )
        for h in window
    ]
    more = start + size < len(hits)
    end = positions.of_chunk(window[-1]) if window else None  # the cursor's mark
    found_fact = suggest(
        ((c.chunk_text, c.source_file, c.title) for c in page),
        compile_patterns(ctx.services.settings.memory.suggest_patterns),
    )
    return RagOut(
        results=page,
        sensitive_detected=any(c.sensitive for c in page),
        next_cursor=(
            positions.write(offset + size, end, t="rag", q=key)
            if end is not None and not reranks
            else encode_cursor(offset + size, t="rag", q=key)
        )
        if more
        else None,
        model=use.model,
        complete=use.complete,
        reranked=order.reranked,
        degraded=order.degraded,
        partial=partial(ctx),
        memory_suggestion=MemorySuggestion(**asdict(found_fact)) if found_fact is not None else None,
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="rag_search",
        domain="search",
        title="Retrieve passages for a question",
        description="The passages (chunks) nearest a natural-language question, for answering from the vault: "
        "chunk_text, score, source_file, section, date, tags, chunk_index; directory_filter, date_range, tags; "
        "sensitive_detected flags secrets (redacted) and health or money content.",
        input_model=RagIn,
        output_model=RagOut,
        handler=rag_search,
        tags=("search",),
    ),
)
