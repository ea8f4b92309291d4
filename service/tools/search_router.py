"""search domain, routers: search_vault (one entry point over every mode) and search_notes
(seed 004's contract: mode tags/properties/full_text/hybrid, path_scope, offset/limit, total).

Touches: nothing directly; both delegate to `service.tools.search` / `search_meta` handlers or
to `service.retrieval`, so filtering by read permission, budgets and cursors behave exactly as
in the mode-specific tools. Hybrid, until the semantic index exists, fuses the BM25 ranking
with the tag/property match list by reciprocal rank fusion (k = 60): notes found by both
rank first. Semantic and graph modes answer `embedding_unavailable` in this build.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
from typing import Any, Literal

from pydantic import BaseModel, Field

from service.errors import EmbeddingUnavailable, ValidationFailed
from service.retrieval import properties as props
from service.retrieval import tags as tag_q
from service.retrieval import text
from service.retrieval.query import parse_query
from service.tools import search as text_tools
from service.tools import search_meta as meta_tools
from service.tools.context import ToolContext
from service.tools.models import Paging, ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.registry import ToolSpec
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

RRF_K = 60
_REGEX_LITERAL = re.compile(r"^/(?P<body>.+)/(?P<flags>[im]*)$", re.DOTALL)

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
    logic: Any = Field(default=None, description="JSONLogic rule for jsonlogic mode.")
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
    if mode in ("semantic", "graph"):
        raise EmbeddingUnavailable(
            f"{mode} search needs the embedding index, which this server does not have yet",
            details={"mode": mode},
            hint="Use mode 'text' or 'hybrid' (BM25 fused with tags/properties).",
        )
    if mode == "text":
        out = await text_tools.search_text(
            ctx, text_tools.SearchTextIn(query=_need(args.query, "query", mode), **common)
        )
        items = [VaultHitItem(**i.model_dump(include=set(VaultHitItem.model_fields))) for i in out.items]
        return SearchVaultOut(mode=mode, items=items, next_cursor=out.next_cursor, partial=out.partial)
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
    result = await _fused(
        ctx,
        query=args.query,
        tag_list=args.tags or [],
        filters=[props.Filter(f.key, f.op, f.value) for f in args.filters or []],
        folders=scope(ctx, args.folder),
        match=args.match,
    )
    key = query_key("hybrid", args.query, args.tags, [f.model_dump() for f in args.filters or []], args.folder)
    offset = decode_cursor(args.cursor, t="vault", q=key)
    result.ranked = await drop_gone(ctx, result.ranked, offset, args.limit)
    page = result.ranked[offset : offset + args.limit]
    snippets = await result.snippets(ctx, page)
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
        items=items,
        next_cursor=encode_cursor(offset + args.limit, t="vault", q=key) if more else None,
        partial=partial(ctx),
    )


class Fused:
    """A complete ranking (every readable hit, best first) plus snippet lookup for a page."""

    def __init__(self, ranked: list[text.TextHit], match: str | None) -> None:
        self.ranked = ranked
        self.match = match

    async def snippets(self, ctx: ToolContext, page: list[text.TextHit]) -> dict[int, str]:
        ids = [h.note_id for h in page]
        match = self.match

        def query(conn: sqlite3.Connection) -> dict[int, str]:
            out: dict[int, str] = {}
            if match:
                out = {k: v.text for k, v in text.snippets(conn, match, ids).items()}
            rest = [i for i in ids if i not in out]
            if rest:
                marks = ",".join("?" * len(rest))
                for nid, body in conn.execute(
                    f"SELECT note_id, substr(body, 1, 400) FROM note_text WHERE note_id IN ({marks})", rest
                ):
                    out[int(nid)] = _lead(body)
            return out

        return await run(ctx, query)


def _lead(body: str) -> str:
    """The first lines of text (headings' '#' dropped), ~200 characters."""
    words = " ".join(line.lstrip("# ").strip() for line in body.split("\n") if line.strip())
    return words[:200] + ("…" if len(words) > 200 else "")


async def _fused(
    ctx: ToolContext,
    *,
    query: str | None,
    tag_list: list[str],
    filters: list[props.Filter],
    folders: list[str],
    match: Literal["all", "any"],
    mode: str = "hybrid",
) -> Fused:
    """Rank notes for search_notes / hybrid search_vault.

    mode full_text: BM25 hits, restricted to the metadata matches when tags/properties are given;
    tags/properties: the metadata matches (newest first); hybrid: RRF of both lists (union)."""
    parsed = parse_query(query) if query else None
    wanted = [tag_q.normalize(t) for t in tag_list]
    can_read = readable(ctx)
    vault_id = ctx.vault.id

    def compute(conn: sqlite3.Connection) -> list[text.TextHit]:
        text_hits = (
            text.all_hits(conn, vault_id, parsed.match, folders, "relevance", can_read) if parsed is not None else None
        )
        meta: list[text.TextHit] | None = None
        if wanted or filters:
            ids: set[int] | None = None
            rows: dict[int, text.TextHit] = {}
            if wanted:
                for h in tag_q.search(conn, vault_id, wanted, match, folders, "mtime", can_read):
                    rows[h.note_id] = text.TextHit(h.note_id, h.path, h.title, h.mtime, 1.0)
                ids = set(rows)
            if filters:
                found = props.search(conn, vault_id, filters, folders, "mtime", can_read, match)
                for r in found:
                    rows.setdefault(r.note_id, text.TextHit(r.note_id, r.path, r.title, r.mtime, 1.0))
                fids = {r.note_id for r in found}
                ids = fids if ids is None else (ids & fids if match == "all" else ids | fids)
            meta = sorted((rows[i] for i in ids or set()), key=lambda h: (-h.mtime, h.path))
        if text_hits is None:
            return meta or []
        if meta is None:
            return _normalised(text_hits)
        if mode == "full_text":
            keep = {h.note_id for h in meta}
            return _normalised([h for h in text_hits if h.note_id in keep])
        return _rrf(text_hits, meta)

    return Fused(await run(ctx, compute), parsed.match if parsed is not None else None)


def _normalised(hits: list[text.TextHit]) -> list[text.TextHit]:
    top = max((h.score for h in hits), default=0.0)
    if top <= 0:
        return [text.TextHit(h.note_id, h.path, h.title, h.mtime, 1.0) for h in hits]
    return [text.TextHit(h.note_id, h.path, h.title, h.mtime, h.score / top) for h in hits]


def _rrf(*lists: list[text.TextHit]) -> list[text.TextHit]:
    scores: dict[int, float] = {}
    first: dict[int, text.TextHit] = {}
    for ranking in lists:
        for rank, h in enumerate(ranking):
            scores[h.note_id] = scores.get(h.note_id, 0.0) + 1.0 / (RRF_K + rank + 1)
            first.setdefault(h.note_id, h)
    top = max(scores.values(), default=1.0)
    fused = [text.TextHit(i, first[i].path, first[i].title, first[i].mtime, scores[i] / top) for i in scores]
    fused.sort(key=lambda h: (-h.score, h.path))
    return fused


# -- search_notes (seed 004 §6.1) ----------------------------------------------------------------


class SearchNotesIn(ToolInput):
    mode: Literal["tags", "properties", "full_text", "hybrid"] = Field(
        default="hybrid", description="What to match: tags, properties, full_text, or hybrid (text fused with both)."
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


def _property_filters(raw: dict[str, Any]) -> list[list[props.Filter]]:
    """One group per key; a group matches when any of its filters does."""
    groups: list[list[props.Filter]] = []
    for key, spec in raw.items():
        if isinstance(spec, dict):
            if set(spec) - {"op", "value"} or "op" not in spec:
                raise ValidationFailed(
                    f"property {key!r}: a filter object is {{op, value}}", details={"field": "properties", "key": key}
                )
            groups.append([props.Filter(key, str(spec["op"]), spec.get("value"))])
        elif isinstance(spec, list):
            if not spec:
                raise ValidationFailed(f"property {key!r}: empty list", details={"field": "properties", "key": key})
            groups.append([props.Filter(key, "==", v) for v in spec])
        else:
            groups.append([props.Filter(key, "==", spec)])
    return groups


_QUERY_CONDITION = re.compile(r"^\s*([^=:<>!]+?)\s*(?:(!=|==|=|:|>|<)\s*(.*?))?\s*$")
_QUERY_OPS = {"=": "==", ":": "==", "==": "==", "!=": "!=", ">": ">", "<": "<"}


def _query_tags(query: str) -> list[str]:
    """Tags named in a tags-mode `query`: `project`, `#a #b`, `a, b/c`."""
    return [t for t in (part.lstrip("#") for part in re.split(r"[\s,]+", query)) if t]


def _query_value(raw: str) -> Any:
    """`3` → 3, `2.5` → 2.5, `true` → True, `"quoted"` → 'quoted', anything else as written."""
    try:
        value = json.loads(raw)
    except ValueError:
        return raw
    return value if isinstance(value, (str, int, float, bool)) else raw


def _query_properties(query: str) -> dict[str, Any]:
    """Property conditions of a properties-mode `query`: `status=active, priority>2, reviewed`."""
    out: dict[str, Any] = {}
    for part in (p for p in query.split(",") if p.strip()):
        m = _QUERY_CONDITION.match(part)
        if m is None or not m.group(1).strip():
            raise ValidationFailed(
                f"cannot read the property condition {part.strip()!r}: use key, key=value, key!=value, key>value "
                "or key<value",
                details={"field": "query"},
            )
        key, op = m.group(1).strip(), m.group(2)
        out[key] = {"op": "exists"} if op is None else {"op": _QUERY_OPS[op], "value": _query_value(m.group(3))}
    return out


async def search_notes(ctx: ToolContext, args: SearchNotesIn) -> SearchNotesOut:
    # Seed 004: `query` is the search string of every mode; in tags and properties mode it names
    # the tags / the property conditions, alongside (or instead of) `tags` / `properties`.
    tag_list = list(args.tags or [])
    prop_spec = dict(args.properties or {})
    if args.mode == "tags" and args.query:
        tag_list += [t for t in _query_tags(args.query) if t not in tag_list]
    if args.mode == "properties" and args.query:
        prop_spec.update({k: v for k, v in _query_properties(args.query).items() if k not in prop_spec})
    if args.mode == "full_text" and not args.query:
        raise ValidationFailed("mode 'full_text' needs `query`", details={"field": "query"})
    if args.mode == "tags" and not tag_list:
        raise ValidationFailed("mode 'tags' needs `tags` (or the tags in `query`)", details={"field": "tags"})
    if args.mode == "properties" and not prop_spec:
        raise ValidationFailed(
            "mode 'properties' needs `properties` (or conditions in `query`)", details={"field": "properties"}
        )
    if not (args.query or tag_list or prop_spec):
        raise ValidationFailed("nothing to search for", details={"field": "query"})
    prefixes = _prefixes(ctx, args.path_scope)
    groups = _property_filters(prop_spec)
    query = args.query if args.mode in ("full_text", "hybrid") else None
    base = (
        await _fused(
            ctx,
            query=query,
            tag_list=tag_list,
            filters=[],
            folders=[],
            match="all",
            mode=args.mode,
        )
        if (query or tag_list)
        else None
    )
    ranked = await _apply_groups(ctx, base, groups, args.mode, query is not None)
    ranked = [h for h in ranked if _in_scope(h.path, prefixes)]
    if args.sort == "modified_desc":
        ranked.sort(key=lambda h: (-h.mtime, h.path))
    elif args.sort == "path_asc":
        ranked.sort(key=lambda h: h.path)
    key = query_key(args.model_dump(exclude={"offset", "cursor", "limit", "idempotency_key", "elicit_token"}))
    offset = decode_cursor(args.cursor, t="notes", q=key) if args.cursor else args.offset
    ranked = await drop_gone(ctx, ranked, offset, args.limit)
    page = ranked[offset : offset + args.limit]
    fused = Fused(ranked, parse_query(query).match if query else None)
    snippets = await fused.snippets(ctx, page)
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
    return SearchNotesOut(total=len(ranked), offset=offset, items=items, next_cursor=cursor, partial=partial(ctx))


async def _apply_groups(
    ctx: ToolContext, base: Fused | None, groups: list[list[props.Filter]], mode: str, has_text: bool
) -> list[text.TextHit]:
    if not groups:
        return base.ranked if base is not None else []
    can_read = readable(ctx)
    vault_id = ctx.vault.id

    def query(conn: sqlite3.Connection) -> list[text.TextHit]:
        ids: set[int] | None = None
        rows: dict[int, props.NoteRow] = {}
        for group in groups:
            found = props.search(conn, vault_id, group, [], "mtime", can_read, "any")
            rows.update({r.note_id: r for r in found})
            gids = {r.note_id for r in found}
            ids = gids if ids is None else ids & gids
        keep = ids or set()
        return sorted(
            (text.TextHit(i, rows[i].path, rows[i].title, rows[i].mtime, 1.0) for i in keep),
            key=lambda h: (-h.mtime, h.path),
        )

    meta = await run(ctx, query)
    if base is None:
        return meta
    if mode == "hybrid" and has_text:
        # Tags were already fused into base with the text ranking; fuse the property list too.
        return _rrf(base.ranked, meta)
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


def tools() -> list[ToolSpec]:
    return [
        ToolSpec(
            "search_vault",
            "search",
            "Search the vault",
            "One search entry point: mode text (BM25), regex ('/pattern/i'), tags, properties, jsonlogic or "
            "hybrid (text fused with tags/properties); 'auto' picks the mode from the arguments.",
            SearchVaultIn,
            SearchVaultOut,
            search_vault,
            tags=("search",),
        ),
        ToolSpec(
            "search_notes",
            "search",
            "Search notes (tags, properties, full text)",
            "Search by tags, properties, full text or hybrid; path_scope, sort relevance/modified_desc/path_asc, "
            "offset/limit; returns total and items with score, snippet, tags, properties and modified_time.",
            SearchNotesIn,
            SearchNotesOut,
            search_notes,
            tags=("search",),
        ),
    ]
