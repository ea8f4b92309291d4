"""search domain, routers: search_vault (one entry point over every mode) and search_notes
(the search_notes contract: mode tags/properties/full_text/hybrid, path_scope, offset/limit, total).

Touches: nothing directly; both delegate to the `text` / `metadata` handlers beside them or to
`service.retrieval` (`fusion`, `conditions`), so filtering by read permission, budgets and cursors behave exactly as
in the mode-specific tools. Hybrid fuses the BM25 ranking with the tag/property match list by
reciprocal rank fusion (k = 60), and that ranking with the vector ranking when the server embeds
notes (`semantic.fuse_with_vectors`). Semantic mode is search_semantic; when embeddings are off
it, like graph mode, answers `embedding_unavailable`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from service.errors import EmbeddingUnavailable, ValidationFailed
from service.retrieval import conditions, fusion, text
from service.retrieval import properties as props
from service.retrieval.query import parse_query
from service.tools.context import ToolContext
from service.tools.models import Paging, ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.search import metadata as meta_tools
from service.tools.search import ranked as ranking
from service.tools.search import semantic as sem_tools
from service.tools.search import text as text_tools
from service.tools.search_common import (
    FOLDER_FIELD,
    FolderArg,
    Partial,
    drop_gone,
    partial,
    query_key,
    readable,
    run,
    scope,
)
from service.tools.spec import ToolSpec

_REGEX_LITERAL = re.compile(r"^/(?P<body>.+)/(?P<flags>[im]*)$", re.DOTALL)

_TEXT_MATCH = "Text query: all (every note has all its words) or any (too few did; notes with some follow)."
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
    limit: int = Field(default=20, ge=1, le=200, description="Page size.")


class VaultHitItem(BaseModel):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL.")
    mtime: float = Field(description="Modification time (Unix seconds).")
    score: float | None = Field(default=None, description="Relevance for ranked modes.")
    snippet: str | None = Field(default=None, description="Matching passage (text modes) or first matching line.")


class SearchVaultOut(ToolOutput, Partial):
    mode: str = Field(description="The mode that ran.")
    text_match: Literal["all", "any"] | None = Field(default=None, description=_TEXT_MATCH)
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


def _need(value: Any, field: str, mode: str) -> Any:
    if not value:
        raise ValidationFailed(f"mode {mode!r} needs `{field}`", details={"field": field, "mode": mode})
    return value


async def search_vault(ctx: ToolContext, args: SearchVaultIn) -> SearchVaultOut:
    mode = _pick_mode(args)
    common = {"vault": args.vault, "folder": args.folder, "limit": args.limit, "cursor": args.cursor}
    if mode == "semantic" and sem_tools.enabled(ctx):
        found, cursor, part = await sem_tools.vault_mode(ctx, _need(args.query, "query", mode), args.tags, common)
        return SearchVaultOut(mode=mode, items=[VaultHitItem(**i) for i in found], next_cursor=cursor, partial=part)
    if mode in ("semantic", "graph"):
        raise EmbeddingUnavailable(
            f"{mode} search needs the embedding index, which this server does not have (now)",
            details={"mode": mode},
            hint="Use mode 'text' or 'hybrid' (BM25 fused with tags/properties).",
        )
    if mode == "text":
        out = await text_tools.search_text(
            ctx, text_tools.SearchTextIn(query=_need(args.query, "query", mode), **common)
        )
        items = [VaultHitItem(**i.model_dump(include=set(VaultHitItem.model_fields))) for i in out.items]
        return SearchVaultOut(
            mode=mode, text_match=out.match, items=items, next_cursor=out.next_cursor, partial=out.partial
        )
    if mode == "regex":
        raw = _need(args.query, "query", mode).strip()
        m = _REGEX_LITERAL.match(raw)
        pattern, flags = (m.group("body"), m.group("flags")) if m else (raw, "")
        rout = await text_tools.search_regex(
            ctx, text_tools.SearchRegexIn(pattern=pattern, ignore_case="i" in flags, **common)
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
        return SearchVaultOut(mode=mode, items=items, next_cursor=rout.next_cursor, partial=rout.partial)
    if mode in ("tags", "properties", "jsonlogic"):
        if mode == "tags":
            mout = await meta_tools.search_tags(
                ctx, meta_tools.SearchTagsIn(tags=_need(args.tags, "tags", mode), match=args.match, **common)
            )
        elif mode == "properties":
            mout = await meta_tools.search_properties(
                ctx,
                meta_tools.SearchPropertiesIn(filters=_need(args.filters, "filters", mode), match=args.match, **common),
            )
        else:
            mout = await meta_tools.query_jsonlogic(ctx, meta_tools.JsonLogicIn(logic=args.logic, **common))
        items = [VaultHitItem(**i.model_dump(include=set(VaultHitItem.model_fields))) for i in mout.items]
        return SearchVaultOut(mode=mode, items=items, next_cursor=mout.next_cursor, partial=mout.partial)
    # hybrid
    result = await ranking.fused(
        ctx,
        query=args.query,
        tag_list=args.tags or [],
        filters=[props.Filter(f.key, f.op, f.value) for f in args.filters or []],
        folders=scope(ctx, args.folder),
        match=args.match,
        limit=args.limit,
    )
    filters_key = [f.model_dump() for f in args.filters or []]
    key = query_key(
        "hybrid", args.query, args.tags, filters_key, args.folder, ranking.pass_limit(args.query, args.limit)
    )
    offset = decode_cursor(args.cursor, t="vault", q=key)
    chunks: dict[int, Any] = {}
    if args.query and sem_tools.enabled(ctx):  # text (+ tags/properties) fused with the vector ranking
        result.ranked, chunks = await sem_tools.fuse_with_vectors(
            ctx,
            result.ranked,
            args.query,
            want=offset + args.limit,
            folders=scope(ctx, args.folder),
            tags=args.tags if args.match == "all" else None,
            restrict={h.note_id for h in result.ranked} if args.filters else None,
        )
    result.ranked = await drop_gone(ctx, result.ranked, offset, args.limit)
    page = result.ranked[offset : offset + args.limit]
    snippets = await result.snippets(ctx, page)
    sem_tools.fill_snippets(snippets, page, chunks)
    items = [
        VaultHitItem(
            path=h.path,
            title=h.title,
            obsidian_url=ctx.vault.url(h.path),
            mtime=h.mtime,
            score=round(h.score, 4),
            snippet=snippets.get(h.note_id),
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
    )


# -- search_notes ---------------------------------------------------------------------------------


class SearchNotesIn(ToolInput):
    mode: Literal["tags", "properties", "full_text", "hybrid", "semantic"] = Field(
        default="hybrid",
        description="What to match: tags, properties, full_text, hybrid (text fused with both and, when the "
        "server embeds notes, with the vector ranking), or semantic (by meaning).",
    )
    query: str | None = Field(
        default=None,
        max_length=2000,
        description="The search string. full_text/hybrid: a full-text query. tags: the tag(s), separated by "
        "spaces or commas (`project`, `#a #b`; all must match, joined with `tags`). properties: "
        "conditions separated by commas, each `key`, `key=value`, `key:value`, `key!=value`, `key>value` "
        "or `key<value` (joined with `properties`).",
    )
    tags: list[str] | None = Field(default=None, max_length=50, description="Notes must carry all of these tags.")
    properties: dict[str, Any] | None = Field(
        default=None,
        description='Property conditions: {"status": "active"} (equality; on lists, any item), '
        '{"status": ["active", "draft"]} (any of), or {"priority": {"op": ">", "value": 2}}.',
    )
    path_scope: list[str] | None = Field(default=None, max_length=20, description="Folder prefixes to search in.")
    limit: int = Field(default=20, ge=1, le=200, description="Page size.")
    offset: int = Field(default=0, ge=0, le=100_000, description="Results to skip.")
    cursor: str | None = Field(default=None, description="`next_cursor` from the previous page (overrides offset).")
    sort: Literal["relevance", "modified_desc", "path_asc"] = Field(default="relevance", description="Order.")


class NoteHitItem(BaseModel):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    score: float = Field(description="0..1, 1 for the best match.")
    snippet: str = Field(description="Matching excerpt (or the note's opening lines).")
    tags: list[str] = Field(description="Tags with '#'.")
    properties: dict[str, Any] = Field(description="Frontmatter properties.")
    modified_time: str = Field(description="ISO 8601 UTC modification time.")
    obsidian_url: str = Field(description="obsidian://open URL.")


class SearchNotesOut(ToolOutput, Partial):
    total: int = Field(description="All matching notes the caller may read.")
    offset: int = Field(description="Offset of this page.")
    items: list[NoteHitItem] = Field(description="This page.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` (or use offset) for the next page.")
    text_match: Literal["all", "any"] | None = Field(default=None, description=_TEXT_MATCH)


async def search_notes(ctx: ToolContext, args: SearchNotesIn) -> SearchNotesOut:
    # Seed 004: `query` is the search string of every mode; in tags and properties mode it names
    # the tags / the property conditions, alongside (or instead of) `tags` / `properties`.
    tag_list = list(args.tags or [])
    prop_spec = dict(args.properties or {})
    if args.mode == "tags" and args.query:
        tag_list += [t for t in conditions.query_tags(args.query) if t not in tag_list]
    if args.mode == "properties" and args.query:
        prop_spec.update({k: v for k, v in conditions.query_properties(args.query).items() if k not in prop_spec})
    if args.mode in ("full_text", "semantic") and not args.query:
        raise ValidationFailed(f"mode {args.mode!r} needs `query`", details={"field": "query"})
    if args.mode == "tags" and not tag_list:
        raise ValidationFailed("mode 'tags' needs `tags` (or the tags in `query`)", details={"field": "tags"})
    if args.mode == "properties" and not prop_spec:
        raise ValidationFailed(
            "mode 'properties' needs `properties` (or conditions in `query`)", details={"field": "properties"}
        )
    if not (args.query or tag_list or prop_spec):
        raise ValidationFailed("nothing to search for", details={"field": "query"})
    prefixes = _prefixes(ctx, args.path_scope)
    groups = conditions.property_filters(prop_spec)
    query = args.query if args.mode in ("full_text", "hybrid") else None
    if args.mode == "semantic":
        sem_tools.engine_of(ctx)
    base = (
        await ranking.fused(
            ctx,
            query=query,
            tag_list=tag_list,
            filters=[],
            folders=[],
            match="all",
            limit=args.limit,
            mode=args.mode,
        )
        if (query or tag_list)
        else None
    )
    ranked = await _apply_groups(ctx, base, groups, args.mode, query is not None)
    chunks: dict[int, Any] = {}
    if args.query and (args.mode == "semantic" or (args.mode == "hybrid" and sem_tools.enabled(ctx))):
        restrict = {h.note_id for h in ranked} if groups or (args.mode == "semantic" and tag_list) else None
        ranked, chunks = await sem_tools.fuse_with_vectors(
            ctx,
            ranked,
            args.query,
            want=args.offset + args.limit,
            folders=prefixes,
            tags=tag_list,
            restrict=restrict,
            vector_only=args.mode == "semantic",
        )
    ranked = [h for h in ranked if _in_scope(h.path, prefixes)]
    if args.sort == "modified_desc":
        ranked.sort(key=lambda h: (-h.mtime, h.path))
    elif args.sort == "path_asc":
        ranked.sort(key=lambda h: h.path)
    key_args = args.model_dump(exclude={"offset", "cursor", "limit", "idempotency_key", "elicit_token"})
    key = query_key(key_args, ranking.pass_limit(query, args.limit))
    offset = decode_cursor(args.cursor, t="notes", q=key) if args.cursor else args.offset
    ranked = await drop_gone(ctx, ranked, offset, args.limit)
    page = ranked[offset : offset + args.limit]
    parsed = parse_query(query) if query else None
    fused = ranking.Fused(ranked, parsed.match if parsed else None, parsed.relaxed if parsed else None)
    snippets = await fused.snippets(ctx, page)
    sem_tools.fill_snippets(snippets, page, chunks)
    details = await _details(ctx, [h.note_id for h in page])
    items = []
    for h in page:
        note_tags, note_props = details.get(h.note_id, ([], {}))
        items.append(
            NoteHitItem(
                path=h.path,
                title=h.title,
                score=round(h.score, 4),
                snippet=snippets.get(h.note_id, ""),
                tags=["#" + t for t in note_tags],
                properties=note_props,
                modified_time=dt.datetime.fromtimestamp(h.mtime, dt.UTC)
                .isoformat(timespec="milliseconds")
                .replace("+00:00", "Z"),
                obsidian_url=ctx.vault.url(h.path),
            )
        )
    more = offset + args.limit < len(ranked)
    cursor = encode_cursor(offset + args.limit, t="notes", q=key) if more else None
    return SearchNotesOut(
        total=len(ranked),
        offset=offset,
        items=items,
        next_cursor=cursor,
        text_match=fused.text_match,
        partial=partial(ctx),
    )


async def _apply_groups(
    ctx: ToolContext, base: ranking.Fused | None, groups: list[list[props.Filter]], mode: str, has_text: bool
) -> list[text.TextHit]:
    if not groups:
        return base.ranked if base is not None else []
    can_read = readable(ctx)
    vault_id = ctx.vault.id
    meta = await run(ctx, lambda conn: fusion.match_groups(conn, vault_id, groups, can_read))
    if base is None:
        return meta
    if mode == "hybrid" and has_text:
        # Tags were already fused into base with the text ranking; fuse the property list too.
        return fusion.rrf(base.ranked, meta)
    keep = {h.note_id for h in meta}
    return [h for h in base.ranked if h.note_id in keep]


def _prefixes(ctx: ToolContext, scopes: list[str] | None) -> list[str]:
    out: list[str] = []
    for raw in scopes or []:
        vp = ctx.resolve(raw.rstrip("/") or "", "read", allow_root=True)
        if vp.rel == "":
            return []
        out.append(vp.rel)
    return out


def _in_scope(path: str, prefixes: list[str]) -> bool:
    return not prefixes or any(path == p or path.startswith(p + "/") for p in prefixes)


async def _details(ctx: ToolContext, ids: list[int]) -> dict[int, tuple[list[str], dict[str, Any]]]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = await ctx.services.db.fetchall(f"SELECT id, tags, properties FROM notes WHERE id IN ({marks})", ids)
    return {int(r[0]): (json.loads(r[1] or "[]"), json.loads(r[2] or "{}")) for r in rows}


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_vault",
        domain="search",
        title="Search the vault",
        description="One search entry point: mode text (BM25), regex ('/pattern/i'), tags, properties, jsonlogic or "
        "hybrid (text fused with tags/properties); 'auto' picks the mode from the arguments.",
        input_model=SearchVaultIn,
        output_model=SearchVaultOut,
        handler=search_vault,
        tags=("search",),
    ),
    ToolSpec(
        name="search_notes",
        domain="search",
        title="Search notes (tags, properties, full text)",
        description="Search by tags, properties, full text or hybrid; path_scope, sort "
        "relevance/modified_desc/path_asc, offset/limit; returns total and items with score, snippet, tags, "
        "properties and modified_time.",
        input_model=SearchNotesIn,
        output_model=SearchNotesOut,
        handler=search_notes,
        tags=("search",),
    ),
)
