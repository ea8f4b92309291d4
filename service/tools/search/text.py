"""search domain, text: search_text (BM25) and search_regex (time-budgeted).

Touches: index tables `fts_words`, `fts_trigram`, `note_text`, `notes` (read only, through
`service.retrieval`); vault files only to turn a regex hit's body line into a file line (one
batch per page, in a worker thread). search_regex matches the note body, not the frontmatter
(properties are searched with search_properties / query_jsonlogic, typed); line numbers are
still the file's.
Every hit is filtered with `can_read` before the page is cut; results carry `obsidian_url`.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Literal

from pydantic import BaseModel, Field

from service.indexer.caps import kept_text
from service.markdown import frontmatter as fm
from service.retrieval import regex as rx
from service.retrieval import text, unspaced
from service.retrieval.query import parse_query
from service.tools.context import ToolContext
from service.tools.models import Paging, ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.search.dates import Window, window_key
from service.tools.search_common import (
    FOLDER_FIELD,
    Capped,
    FolderArg,
    HitItem,
    Partial,
    capped,
    partial,
    query_key,
    readable,
    run_fresh,
    scope,
    sort_field,
)
from service.tools.sensitive import excerpts_of, guard_of, note_excerpts
from service.tools.spec import ToolSpec


class SearchTextIn(ToolInput, Paging):
    query: str = Field(
        min_length=1,
        max_length=2000,
        description='Words (stemmed; or a question: stop words are left out), "exact phrase", prefix*, '
        "AND / OR / NOT or -word, ( ), title:word.",
    )
    folder: FolderArg = FOLDER_FIELD
    sort: Literal["relevance", "mtime", "path"] = sort_field("relevance", "relevance", "mtime", "path")
    limit: int = Field(default=20, ge=1, le=200, description="Page size.")


class TextHitItem(HitItem):
    score: float = Field(
        description="BM25 relevance (higher is better; tiny for a word in over half the notes: BM25 floors its weight)."
    )
    snippet: str = Field(description="The best-matching passage (~16 words).")
    highlights: list[tuple[int, int]] = Field(description="[start, end) character spans of matches in `snippet`.")
    match: Literal["all", "any"] = Field(description="all: has every word of the query; any: only some of them.")
    sensitive: bool = Field(
        default=False, description="The note holds a secret or names a health/money topic: ask before passing it on."
    )


class SearchTextOut(ToolOutput, Partial, Capped):
    query: str = Field(description="The query as understood (FTS5 expression).")
    match: Literal["all", "any"] = Field(
        description="all: every note has all the words; any: too few did, so notes with some of them follow."
    )
    items: list[TextHitItem] = Field(description="This page of matching notes, best first.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


def shown_score(score: float) -> float:
    """A BM25 score as answered: four decimals, or three significant digits below 0.01. FTS5 floors
    the weight of a word in over half the notes at 1e-6, so such a query's scores were all shown
    as 0 (the 'obsidian' of the Help vault) while they still order the page."""
    return round(score, 4) if abs(score) >= 0.01 else float(f"{score:.3g}")


# A page of hits: (hits, more, which pass answered, snippets by note id).
_Page = tuple[list[text.TextHit], bool, text.Match, dict[int, text.Snippet]]


async def search_text(ctx: ToolContext, args: SearchTextIn, dates: Window | None = None) -> SearchTextOut:
    """`dates`: only notes modified in the window (search_vault's date filters)."""
    parsed = parse_query(args.query)
    folders = scope(ctx, args.folder)
    # With a relaxed form, which pass answers depends on the page size: a cursor keeps it.
    key = query_key(parsed.match, folders, args.sort, args.limit if parsed.relaxed else None, *window_key(dates))
    offset = decode_cursor(args.cursor, t="text", q=key)
    can_read = readable(ctx)
    vault_id = ctx.vault.id
    guard = guard_of(ctx)

    def query(conn: sqlite3.Connection) -> tuple[_Page, dict[int, str], set[int]]:
        """The page, its snippets as they may be shown and its sensitive notes: one reader, one trip."""
        allowed = can_read if dates is None else dates.readable(conn, vault_id, can_read)
        hits, more, answered = text.two_pass_page(
            conn, vault_id, parsed.match, parsed.relaxed, folders, args.sort, allowed, offset, args.limit
        )
        words = parsed.relaxed if answered == "any" and parsed.relaxed else parsed.match
        ids = [h.note_id for h in hits]
        # every hit matches `words`, and the ranking read its size: no statement asks either again
        snips = text.snippets(conn, words, ids, matching=True, sizes={h.note_id: h.size for h in hits})
        flagged = note_excerpts(guard, conn, ids)
        sensitive = flagged.secrets | (flagged.topics or set())
        # Every snippet is of a hit: `flagged` has its verdict (`scrubbed` would look them up again).
        texts = {nid: s.text for nid, s in snips.items()}
        safe = {nid: flagged.show(nid, t) for nid, t in texts.items()} if guard.redacts else texts
        return (hits, more, answered, snips), safe, sensitive

    (hits, more, answered, snips), shown, sensitive = await run_fresh(
        ctx, can_read, query, lambda out: [h.path for h in out[0][0]]
    )
    items = []
    for h in hits:
        snip = snips.get(h.note_id, text.Snippet("", []))
        if shown.get(h.note_id, snip.text) != snip.text:  # redacted: the highlight offsets no longer hold
            snip = text.Snippet(shown[h.note_id], [])
        items.append(
            TextHitItem(
                path=h.path,
                title=h.title,
                obsidian_url=ctx.vault.url(h.path),
                mtime=h.mtime,
                score=shown_score(h.score),
                snippet=snip.text,
                highlights=snip.highlights,
                match=h.match,
                sensitive=h.note_id in sensitive,
            )
        )
    cursor = encode_cursor(offset + args.limit, t="text", q=key) if more else None
    return SearchTextOut(
        query=unspaced.shown(parsed.match),  # without the word joiners of unspaced scripts
        match=answered,
        items=items,
        next_cursor=cursor,
        partial=partial(ctx),
        capped=capped(ctx, folders, can_read),
    )


class SearchRegexIn(ToolInput, Paging):
    pattern: str = Field(
        min_length=1, max_length=rx.MAX_PATTERN, description="Regular expression (Python `regex` syntax)."
    )
    folder: FolderArg = FOLDER_FIELD
    ignore_case: bool = Field(default=False, description="Case-insensitive matching.")
    multiline: bool = Field(default=True, description="^ and $ match at every line (grep-like).")
    max_lines: int = Field(default=5, ge=1, le=100, description="Matching lines listed per note.")
    budget_ms: int | None = Field(
        default=None, ge=10, le=60_000, description="Time budget; default and ceiling from the server config."
    )
    limit: int = Field(default=20, ge=1, le=200, description="Page size (notes).")


class LineMatchItem(BaseModel):
    line: int = Field(description="1-based line in the file.")
    text: str = Field(description="The line (first 300 characters).")
    spans: list[tuple[int, int]] = Field(description="[start, end) spans of the matches in `text`.")


class RegexHitItem(HitItem):
    match_count: int = Field(description="Matches in the note's body.")
    matches: list[LineMatchItem] = Field(description="The first matching lines.")


class SearchRegexOut(ToolOutput, Partial, Capped):
    items: list[RegexHitItem] = Field(description="This page of notes with a match, in path order.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")
    prefiltered: bool = Field(description="True when the trigram index narrowed the notes scanned.")


async def search_regex(ctx: ToolContext, args: SearchRegexIn, dates: Window | None = None) -> SearchRegexOut:
    """`dates`: only notes modified in the window (search_vault's date filters)."""
    compiled = rx.compile_pattern(args.pattern, ignore_case=args.ignore_case, multiline=args.multiline)
    literals = rx.required_literals(args.pattern, ignore_case=args.ignore_case)
    folders = scope(ctx, args.folder)
    key = query_key(args.pattern, args.ignore_case, args.multiline, folders, *window_key(dates))
    offset = decode_cursor(args.cursor, t="regex", q=key)
    cfg = ctx.services.settings.search
    budget_ms = min(args.budget_ms or cfg.regex_budget_ms, cfg.regex_max_budget_ms)
    can_read = readable(ctx)
    vault_id = ctx.vault.id

    def query(conn: sqlite3.Connection) -> tuple[list[rx.RegexHit], bool, bool]:
        return rx.search(
            conn,
            vault_id,
            compiled,
            literals,
            folders,
            can_read if dates is None else dates.readable(conn, vault_id, can_read),
            want=offset + args.limit,
            budget_s=budget_ms / 1000,
            max_lines=args.max_lines,
        )

    # Its own budget may be longer than the search read budget (`[search] regex_max_budget_ms`).
    hits, more, prefiltered = await run_fresh(
        ctx, can_read, query, lambda out: [h.path for h in out[0][offset:]], at_least_ms=budget_ms
    )
    page = hits[offset:]
    shifts = await asyncio.to_thread(_body_lines, ctx, [h.path for h in page])  # file reads: off the loop
    guard = guard_of(ctx)
    shown = await excerpts_of(ctx, [h.note_id for h in page] if guard.redacts else [])
    items: list[RegexHitItem] = []
    for h in page:
        shift = shifts.get(h.path, 0)
        lines = [(m, shown.show(h.note_id, m.text)) for m in h.matches]
        items.append(
            RegexHitItem(
                path=h.path,
                title=h.title,
                obsidian_url=ctx.vault.url(h.path),
                mtime=h.mtime,
                match_count=h.match_count,
                matches=[
                    LineMatchItem(line=m.line + shift + 1, text=safe, spans=m.spans if safe == m.text else [])
                    for m, safe in lines
                ],
            )
        )
    cursor = encode_cursor(offset + args.limit, t="regex", q=key) if more else None
    return SearchRegexOut(
        items=items,
        next_cursor=cursor,
        prefiltered=prefiltered,
        partial=partial(ctx),
        capped=capped(ctx, folders, can_read),
    )


def _body_lines(ctx: ToolContext, rels: list[str]) -> dict[str, int]:
    """Lines of frontmatter before the indexed body, per note of a page (0 when a file is gone),
    from what the index reads of the note (`kept_text` of its first `[limits]
    max_indexed_note_chars` characters): the rest is never read, so a note of any size (past
    `[limits] max_note_bytes` too) has its line numbers counted from the file's first line."""
    cap = ctx.services.settings.limits.max_indexed_note_chars
    out: dict[str, int] = {}
    for rel in rels:
        try:
            head = ctx.vault.files.read_start(ctx.vault.paths.resolve(rel), cap + 1)
        except Exception:  # noqa: BLE001 - deleted since indexing: the body line is the best we have
            continue
        out[rel] = fm.split(kept_text(head, cap)).body_line
    return out


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_text",
        domain="search",
        title="Full-text search",
        description="Search note text and titles (BM25 ranking, stemming) with snippets and highlight spans. "
        "Keywords or a plain question: stop words are left out, and when fewer notes than `limit` have every "
        "word, notes with some of them follow, best first (`match`: any). "
        'Supports "phrases", prefix*, AND/OR/NOT, -exclusion, (grouping) and title:word; '
        "scope with `folder`, sort by relevance, mtime or path. "
        "Prefer search_notes to combine text with tags or properties, search_regex for exact patterns.",
        input_model=SearchTextIn,
        output_model=SearchTextOut,
        handler=search_text,
        tags=("search",),
    ),
    ToolSpec(
        name="search_regex",
        domain="search",
        title="Regex search",
        description="Regular-expression search of note bodies (not frontmatter) under a time budget "
        "(compute_budget_exceeded when it runs out; literal parts are prefiltered by a trigram "
        "index); returns matching lines with 1-based line numbers and match spans. Use it for "
        "exact patterns (TODO(x), dates, code); prefer search_text for words, search_properties "
        "for frontmatter.",
        input_model=SearchRegexIn,
        output_model=SearchRegexOut,
        handler=search_regex,
        tags=("search",),
    ),
)
