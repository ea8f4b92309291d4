"""search domain, router: search_vault (one entry point over every mode), and the text + metadata
ranking it shares with search_notes (`notes_search.py`): `fused_ranking`, `Fused`, `pass_limit`.

Both delegate to the `text` / `metadata` handlers beside them or to `service.retrieval` (`fusion`, `conditions`), so
read permission, budgets and cursors behave as in the mode-specific tools. Hybrid fuses the BM25 ranking with the
tag/property matches by reciprocal rank fusion (k = 60), and that ranking with the vector ranking when the server
embeds notes (`semantic.fuse_with_vectors`). Semantic mode needs embeddings on; graph mode is not in this build:
both answer `mode_unavailable` (not retryable) when they cannot work."""

from __future__ import annotations

import re
import sqlite3
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from service.errors import ModeUnavailable, ValidationFailed
from service.retrieval import fusion, text
from service.retrieval import properties as props
from service.retrieval import tags as tag_q
from service.retrieval.query import parse_query
from service.semantic.engine import ChunkRow
from service.tools.context import ToolContext
from service.tools.models import Paging, ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.search import flags
from service.tools.search import metadata as meta_tools
from service.tools.search import text as text_tools
from service.tools.search import vector_modes as sem_tools
from service.tools.search.dates import AFTER_FIELD, BEFORE_FIELD, DateArg, Window, window_key, within
from service.tools.search.readers import best_chunks
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
    run_search,
    scope,
)
from service.tools.sensitive import scrub
from service.tools.spec import ToolSpec

_REGEX_LITERAL = re.compile(r"^/(?P<body>.+)/(?P<flags>[im]*)$", re.DOTALL)

TEXT_MATCH = "Text query: all (every note has all its words) or any (too few did; notes with some follow)."
Mode = Literal["auto", "text", "regex", "tags", "properties", "jsonlogic", "semantic", "hybrid", "graph"]


class SearchVaultIn(ToolInput, Paging):
    query: str | None = Field(
        default=None, max_length=2000, description="Words for text/hybrid search; '/pattern/i' for regex."
    )
    mode: Mode = Field(
        default="auto",
        description="auto picks from the arguments: logic → jsonlogic, /re/ → regex, query → text "
        "(hybrid when tags or filters are also given), tags → tags, filters → properties.",
    )
    tags: list[str] | None = Field(default=None, max_length=50, description="Tags for tags/hybrid mode.")
    match: Literal["all", "any"] = Field(default="all", description="For tags and filters: all or any.")
    filters: list[meta_tools.FilterIn] | None = Field(
        default=None, max_length=20, description="Property filters {key, op, value} for properties/hybrid mode."
    )
    logic: dict[str, Any] | None = Field(default=None, description="JSONLogic rule for jsonlogic mode.")
    folder: FolderArg = FOLDER_FIELD
    modified_after: DateArg = AFTER_FIELD
    modified_before: DateArg = BEFORE_FIELD
    limit: int = Field(default=20, ge=1, le=200, description="Page size.")


class VaultHitItem(BaseModel):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL.")
    mtime: float = Field(description="Modification time (Unix seconds).")
    score: float | None = Field(default=None, description="Relevance for ranked modes.")
    snippet: str | None = Field(default=None, description="Matching passage (text modes) or first matching line.")
    sensitive: bool = Field(
        default=False,
        description="The note holds a secret (the snippet shows it redacted, unless the vault's mode is flag), "
        "or the snippet, a tag or the best chunk's heading is a health or money topic.",
    )


class SearchVaultOut(ToolOutput, Partial, Capped):
    mode: str = Field(description="The mode that ran.")
    text_match: Literal["all", "any"] | None = Field(default=None, description=TEXT_MATCH)
    items: list[VaultHitItem] = Field(description="This page of results.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` (with the same arguments).")


def _pick_mode(args: SearchVaultIn) -> str:
    if args.mode != "auto":
        return args.mode
    if args.logic is not None:
        return "jsonlogic"
    if args.query:
        if _REGEX_LITERAL.match(args.query.strip()):
            return "regex"
        return "hybrid" if (args.tags or args.filters) else "text"
    if args.tags and not args.filters:
        return "tags"
    if args.filters:
        return "hybrid" if args.tags else "properties"
    raise ValidationFailed(
        "nothing to search for", details={"field": "query"}, hint="Give a query, tags, filters or logic."
    )


# What enables the semantic and graph modes (named in the error's hint and in the tool description).
SEMANTIC_ENABLED_BY = "semantic mode needs the server's [embeddings] provider on (the default, 'builtin')"
GRAPH_ENABLED_BY = "graph mode is not part of this server build"
AVAILABLE = ("text", "regex", "tags", "properties", "jsonlogic", "hybrid")  # the modes that always answer
USE_INSTEAD = "Use mode 'text' or 'hybrid'."


_M = TypeVar("_M", bound=BaseModel)


def _need(value: Any, field: str, mode: str) -> Any:
    if not value:
        raise ValidationFailed(f"mode {mode!r} needs `{field}`", details={"field": field, "mode": mode})
    return value


def _inner(model: type[_M], mode: str, **fields: Any) -> _M:
    """The mode's own tool input from search_vault's arguments: what that tool would refuse
    (a value past its bounds) is search_vault's validation_error, never an internal error."""
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        issues = [
            {"field": ".".join(str(p) for p in e["loc"]) or "(arguments)", "issue": e["msg"], "type": e["type"]}
            for e in exc.errors(include_url=False, include_input=False)
        ]
        raise ValidationFailed(
            f"mode {mode!r}: " + "; ".join(f"{i['field']}: {i['issue']}" for i in issues[:5]),
            details={"mode": mode, "issues": issues},
        ) from None


async def search_vault(ctx: ToolContext, args: SearchVaultIn) -> SearchVaultOut:
    mode = _pick_mode(args)
    common = {"vault": args.vault, "folder": args.folder, "limit": args.limit, "cursor": args.cursor}
    dates = Window.of(args.modified_after, args.modified_before)
    if mode == "semantic" and sem_tools.enabled(ctx):
        dated = {"modified_after": args.modified_after, "modified_before": args.modified_before}
        query = _need(args.query, "query", mode)
        found, cursor, part, cut = await sem_tools.vault_mode(ctx, query, args.tags, {**common, **dated})
        items = [VaultHitItem(**i) for i in found]
        return SearchVaultOut(mode=mode, items=items, next_cursor=cursor, partial=part, capped=cut)
    if mode in ("semantic", "graph"):
        if mode == "semantic":
            _need(args.query, "query", mode)  # the arguments, then the folders, then the mode (ORDER)
        scope(ctx, args.folder)  # (`service.tools.search`, ORDER)
        meaning = sem_tools.enabled(ctx)  # graph mode asked while semantic mode works: name it
        raise ModeUnavailable(
            f"{mode} search is not available on this server",
            details={"mode": mode, "available": [*AVAILABLE, *(["semantic"] if meaning else [])]},
            hint=f"Retrying will not help: {SEMANTIC_ENABLED_BY if mode == 'semantic' else GRAPH_ENABLED_BY}. "
            + ("Use mode 'hybrid' or 'semantic' (graphrag_query follows links)." if meaning else USE_INSTEAD),
        )
    if mode == "text":
        out = await text_tools.search_text(
            ctx, _inner(text_tools.SearchTextIn, mode, query=_need(args.query, "query", mode), **common), dates
        )
        items = await _flagged(
            ctx, [VaultHitItem(**i.model_dump(include=set(VaultHitItem.model_fields))) for i in out.items]
        )
        return SearchVaultOut(
            mode=mode,
            text_match=out.match,
            items=items,
            next_cursor=out.next_cursor,
            partial=out.partial,
            capped=out.capped,
        )
    if mode == "regex":
        raw = _need(args.query, "query", mode).strip()
        m = _REGEX_LITERAL.match(raw)
        pattern, opts = (m.group("body"), m.group("flags")) if m else (raw, "")
        rout = await text_tools.search_regex(
            ctx, _inner(text_tools.SearchRegexIn, mode, pattern=pattern, ignore_case="i" in opts, **common), dates
        )
        items = [
            VaultHitItem(
                path=i.path,
                title=i.title,
                obsidian_url=i.obsidian_url,
                mtime=i.mtime,
                snippet=i.matches[0].text if i.matches else None,
            )
            for i in rout.items
        ]
        items = await _flagged(ctx, items)
        return SearchVaultOut(
            mode=mode, items=items, next_cursor=rout.next_cursor, partial=rout.partial, capped=rout.capped
        )
    if mode in ("tags", "properties", "jsonlogic"):
        if mode == "tags":
            mout = await meta_tools.search_tags(
                ctx,
                _inner(meta_tools.SearchTagsIn, mode, tags=_need(args.tags, "tags", mode), match=args.match, **common),
                dates,
            )
        elif mode == "properties":
            mout = await meta_tools.search_properties(
                ctx,
                _inner(
                    meta_tools.SearchPropertiesIn,
                    mode,
                    filters=_need(args.filters, "filters", mode),
                    match=args.match,
                    **common,
                ),
                dates,
            )
        else:
            mout = await meta_tools.query_jsonlogic(
                ctx, _inner(meta_tools.JsonLogicIn, mode, logic=_need(args.logic, "logic", mode), **common), dates
            )
        items = await _flagged(
            ctx, [VaultHitItem(**i.model_dump(include=set(VaultHitItem.model_fields))) for i in mout.items]
        )
        return SearchVaultOut(mode=mode, items=items, next_cursor=mout.next_cursor, partial=mout.partial)
    # hybrid
    result = await fused_ranking(
        ctx,
        query=args.query,
        tag_list=args.tags or [],
        filters=[props.Filter(f.key, f.op, f.value) for f in args.filters or []],
        folders=scope(ctx, args.folder),
        match=args.match,
        limit=args.limit,
    )
    result.ranked = within(result.ranked, dates)
    filters_key = [f.model_dump() for f in args.filters or []]
    key = query_key(
        "hybrid",
        args.query,
        args.tags,
        filters_key,
        args.folder,
        pass_limit(args.query, args.limit),
        *window_key(dates),
    )
    offset = decode_cursor(args.cursor, t="vault", q=key)
    chunks: dict[int, ChunkRow] = {}
    if args.query and sem_tools.enabled(ctx):  # text (+ tags/properties) fused with the vector ranking
        result.ranked, chunks = await sem_tools.fuse_with_vectors(
            ctx,
            result.ranked,
            args.query,
            want=offset + args.limit,
            folders=scope(ctx, args.folder),
            tags=args.tags if args.match == "all" else None,
            restrict={h.note_id for h in result.ranked} if args.filters else None,
            window=dates,
            text_complete=result.complete,
        )
    result.ranked = await drop_gone(ctx, result.ranked, offset, args.limit)
    page = result.ranked[offset : offset + args.limit]
    snippets = await scrub(ctx, await result.snippets(ctx, page))
    links = await best_chunks(ctx, page, chunks, snippets)
    flagged = await flags.sensitive(ctx, {h.path: shown_of(h.note_id, snippets, chunks) for h in page})
    items = [
        VaultHitItem(
            path=h.path,
            title=h.title,
            obsidian_url=links[h.note_id],
            mtime=h.mtime,
            score=round(h.score, 4),
            snippet=snippets.get(h.note_id),
            sensitive=flagged.get(h.path, False),
        )
        for h in page
    ]
    more = offset + args.limit < len(result.ranked)
    return SearchVaultOut(
        mode="hybrid",
        text_match=result.text_match,
        items=items,
        next_cursor=encode_cursor(offset + args.limit, t="vault", q=key) if more else None,
        partial=partial(ctx),
        # Words are matched in the indexed text only; tags and properties are read whole.
        capped=capped(ctx, scope(ctx, args.folder), readable(ctx)) if args.query else None,
    )


def _item(hit: BaseModel) -> VaultHitItem:
    """A mode tool's item as search_vault's (its fields that search_vault's items have)."""
    return VaultHitItem(**hit.model_dump(include=set(VaultHitItem.model_fields)))


async def _flagged(ctx: ToolContext, items: list[VaultHitItem]) -> list[VaultHitItem]:
    """`items` with their `sensitive` flags (`flags.sensitive`, on the snippets as shown)."""
    found = await flags.sensitive(ctx, {i.path: flags.Shown(i.snippet or "") for i in items})
    for item in items:
        item.sensitive = found.get(item.path, False)
    return items


def shown_of(note_id: int, snippets: dict[int, str], chunks: dict[int, ChunkRow]) -> flags.Shown:
    """What a hybrid item shows of its note: its snippet, from the best chunk when it has one."""
    row = chunks.get(note_id)
    return flags.Shown(snippets.get(note_id, ""), row.heading if row is not None else None)


def pass_limit(query: str | None, limit: int) -> int | None:
    """The page size when it decides whether a relaxed text pass runs (then a cursor keeps it)."""
    return limit if query and parse_query(query).relaxed is not None else None


class Fused:
    """A complete ranking (every readable hit, best first) plus snippet lookup for a page;
    `complete`: its text half holds every note the query's words find (`fusion.complete`)."""

    def __init__(
        self, ranked: list[text.TextHit], match: str | None, relaxed: str | None = None, *, complete: bool = True
    ) -> None:
        self.ranked = ranked
        self.complete = complete
        relaxed_used = relaxed is not None and any(h.match == "any" for h in ranked)
        self.text_match: Literal["all", "any"] | None = None if match is None else "any" if relaxed_used else "all"
        self.match = relaxed if relaxed_used else match

    async def snippets(self, ctx: ToolContext, page: list[text.TextHit]) -> dict[int, str]:
        ids = [h.note_id for h in page]
        match = self.match
        return await run_search(ctx, lambda conn: fusion.snippets(conn, match, ids))


async def fused_ranking(
    ctx: ToolContext,
    *,
    query: str | None,
    tag_list: list[str],
    filters: list[props.Filter],
    folders: list[str],
    match: Literal["all", "any"],
    limit: int,
    mode: str = "hybrid",
) -> Fused:
    """Rank notes for search_notes / hybrid search_vault (`service.retrieval.fusion`)."""
    parsed = parse_query(query) if query else None
    match_expr = parsed.match if parsed is not None else None
    relaxed_expr = parsed.relaxed if parsed is not None else None
    wanted = [tag_q.normalize(t) for t in tag_list]
    can_read = readable(ctx)
    vault_id = ctx.vault.id

    def compute(conn: sqlite3.Connection) -> tuple[list[text.TextHit], bool]:
        return fusion.rank(
            conn,
            vault_id,
            match_expr=match_expr,
            wanted=wanted,
            filters=filters,
            folders=folders,
            match=match,
            mode=mode,
            can_read=can_read,
            relaxed_expr=relaxed_expr,
            want=limit,
        )

    ranked, whole = await run_search(ctx, compute)
    return Fused(ranked, match_expr, relaxed_expr, complete=whole)


# -- search_notes ---------------------------------------------------------------------------------


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_vault",
        domain="search",
        title="Search the vault",
        description="One entry point to every search mode: text (BM25), regex ('/pattern/i'), tags, properties, "
        "jsonlogic or hybrid (text fused with tags/properties); 'auto' picks the mode from the arguments; folder "
        "and modified_after/modified_before filters in every mode, items flagged sensitive. Use it "
        "when unsure which search fits; the dedicated tools offer more options. Mode 'semantic' (by meaning; "
        "search_hybrid and search_semantic offer more) needs embeddings on; mode 'graph' is not in this build: an "
        "unavailable mode answers mode_unavailable (not retryable).",
        input_model=SearchVaultIn,
        output_model=SearchVaultOut,
        handler=search_vault,
        tags=("search",),
    ),
)
