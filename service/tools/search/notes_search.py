"""search domain: search_notes, the search_notes contract (mode tags / properties / full_text /
hybrid / semantic, `folder` (alias `path_scope`), sort, offset/limit, total), over the rankings of
`router.py` (`fused_ranking`) and, for semantic and hybrid, the vector ranking (`semantic.py`)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from service.errors import ValidationFailed
from service.retrieval import conditions, fusion, text
from service.retrieval import properties as props
from service.retrieval.query import parse_query
from service.semantic.engine import ChunkRow
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.search import flags
from service.tools.search import vector_modes as sem_tools
from service.tools.search.dates import AFTER_FIELD, BEFORE_FIELD, DateArg, Window
from service.tools.search.readers import best_chunks
from service.tools.search.router import TEXT_MATCH, Fused, fused_ranking, pass_limit, shown_of
from service.tools.search.semantic import engine_of
from service.tools.search_common import (
    Capped,
    LegacySort,
    Partial,
    capped,
    drop_gone,
    folder_field,
    partial,
    query_key,
    readable,
    run_search,
    sort_field,
)
from service.tools.sensitive import guard_of, scrub
from service.tools.spec import ToolSpec


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
        "conditions separated by commas, each `key`, `key=value`, `key:value`, `key!=value`, `key>value`, "
        "`key>=value`, `key<value` or `key<=value` (joined with `properties`).",
    )
    tags: list[str] | None = Field(default=None, max_length=50, description="Notes must carry all of these tags.")
    properties: dict[str, Any] | None = Field(
        default=None,
        description='Property conditions: {"status": "active"} (equality; on lists, any item), '
        '{"status": ["active", "draft"]} (any of), or {"priority": {"op": ">", "value": 2}}.',
    )
    folder: str | Annotated[list[str], Field(max_length=20)] | None = folder_field("path_scope")
    limit: int = Field(default=20, ge=1, le=200, description="Page size.")
    offset: int = Field(default=0, ge=0, le=100_000, description="Results to skip.")
    cursor: str | None = Field(default=None, description="`next_cursor` from the previous page (overrides offset).")
    sort: LegacySort = sort_field("relevance", "relevance", "mtime", "path")
    modified_after: DateArg = AFTER_FIELD
    modified_before: DateArg = BEFORE_FIELD


class NoteHitItem(BaseModel):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    score: float = Field(description="0..1, 1 for the best match.")
    snippet: str = Field(description="Matching excerpt (or the note's opening lines).")
    tags: list[str] = Field(description="Tags with '#'.")
    properties: dict[str, Any] = Field(description="Frontmatter properties.")
    modified_time: str = Field(description="ISO 8601 UTC modification time.")
    obsidian_url: str = Field(description="obsidian://open URL (semantic/hybrid: at the best chunk's heading).")
    sensitive: bool = Field(
        default=False,
        description="The note holds a secret (the snippet shows it redacted, unless the vault's mode is flag), "
        "or the snippet, a tag or the best chunk's heading is a health or money topic.",
    )


class SearchNotesOut(ToolOutput, Partial, Capped):
    total: int = Field(description="All matching notes the caller may read.")
    offset: int = Field(description="Offset of this page.")
    items: list[NoteHitItem] = Field(description="This page.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` (or use offset) for the next page.")
    text_match: Literal["all", "any"] | None = Field(default=None, description=TEXT_MATCH)


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
    prefixes = _prefixes(ctx, [args.folder] if isinstance(args.folder, str) else args.folder)
    window = Window.of(args.modified_after, args.modified_before)
    groups = conditions.property_filters(prop_spec)
    query = args.query if args.mode in ("full_text", "hybrid") else None
    key_args = args.model_dump(exclude={"offset", "cursor", "limit", "idempotency_key", "elicit_token"})
    key = query_key(key_args, pass_limit(query, args.limit))
    # The page's offset before the rankings: the vector ranking is as deep as the pages asked
    # for, the cursor's pages too (`want` once read 0 + limit for every page after the first).
    offset = decode_cursor(args.cursor, t="notes", q=key) if args.cursor else args.offset
    if args.mode == "semantic":
        engine_of(ctx)
    base = (
        await fused_ranking(
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
    chunks: dict[int, ChunkRow] = {}
    if args.query and (args.mode == "semantic" or (args.mode == "hybrid" and sem_tools.enabled(ctx))):
        restrict = {h.note_id for h in ranked} if groups or (args.mode == "semantic" and tag_list) else None
        ranked, chunks = await sem_tools.fuse_with_vectors(
            ctx,
            ranked,
            args.query,
            want=offset + args.limit,
            folders=prefixes,
            tags=tag_list,
            restrict=restrict,
            vector_only=args.mode == "semantic",
            window=window,
            text_complete=base is None or base.complete,
        )
    ranked = [h for h in ranked if _in_scope(h.path, prefixes) and (window is None or window.holds(h.mtime))]
    if args.sort == "mtime":
        ranked.sort(key=lambda h: (-h.mtime, h.path))
    elif args.sort == "path":
        ranked.sort(key=lambda h: h.path)
    ranked = await drop_gone(ctx, ranked, offset, args.limit)
    page = ranked[offset : offset + args.limit]
    parsed = parse_query(query) if query else None
    fused = Fused(ranked, parsed.match if parsed else None, parsed.relaxed if parsed else None)
    snippets = await scrub(ctx, await fused.snippets(ctx, page))
    links = await best_chunks(ctx, page, chunks, snippets)
    flagged = await flags.sensitive(ctx, {h.path: shown_of(h.note_id, snippets, chunks) for h in page})
    guard = guard_of(ctx)
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
                properties=guard.show_properties(note_props),
                modified_time=dt.datetime.fromtimestamp(h.mtime, dt.UTC)
                .isoformat(timespec="milliseconds")
                .replace("+00:00", "Z"),
                obsidian_url=links[h.note_id],
                sensitive=flagged.get(h.path, False),
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
        # full_text, hybrid and semantic match words and chunks of the indexed text only.
        capped=capped(ctx, prefixes, readable(ctx)) if args.query and args.mode in _TEXT_MODES else None,
    )


_TEXT_MODES = ("full_text", "hybrid", "semantic")


async def _apply_groups(
    ctx: ToolContext, base: Fused | None, groups: list[list[props.Filter]], mode: str, has_text: bool
) -> list[text.TextHit]:
    if not groups:
        return base.ranked if base is not None else []
    can_read = readable(ctx)
    vault_id = ctx.vault.id
    meta = await run_search(ctx, lambda conn: fusion.match_groups(conn, vault_id, groups, can_read))
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
        vp = ctx.folder(raw.rstrip("/") or "", field="folder")
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
        name="search_notes",
        domain="search",
        title="Search notes (tags, properties, full text)",
        description="Search by tags, properties, full text, or all of them fused (mode hybrid, the default); "
        "returns total and items with a 0..1 score, snippet, tags, properties, modified_time and a sensitive "
        "flag, paged by offset or cursor; modified_after/modified_before filter by date. Use it to combine "
        "text with tag or property conditions; prefer search_text for query syntax and highlights.",
        input_model=SearchNotesIn,
        output_model=SearchNotesOut,
        handler=search_notes,
        tags=("search",),
    ),
)
