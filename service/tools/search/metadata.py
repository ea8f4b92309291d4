"""search domain, metadata: search_tags, search_properties, query_jsonlogic.

Touches: index tables `notes`, `note_tags`, `note_properties` (read only, through
`service.retrieval`). Totals are of notes the caller may read, so a denied note cannot be
inferred from a number. Results carry `obsidian_url`; lists paginate with `limit`/`cursor`.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Literal

from pydantic import BaseModel, Field

from service.obsidian.canvas import not_canvas
from service.retrieval import properties as props
from service.retrieval import tags
from service.retrieval.text import folder_clause
from service.tools.context import ToolContext
from service.tools.models import JsonValue, Paging, ToolInput, ToolOutput, decode_cursor, page_of
from service.tools.search.dates import Window, window_key, within
from service.tools.search_common import (
    FOLDER_FIELD,
    FolderArg,
    HitItem,
    Partial,
    drop_gone,
    partial,
    query_key,
    readable,
    run,
    scope,
    sort_field,
)
from service.tools.spec import ToolSpec


class MetaHitItem(HitItem):
    tags: list[str] = Field(description="The note's tags (without '#').")
    properties: dict[str, Any] = Field(description="The note's frontmatter properties.")


class MetaHitsOut(ToolOutput, Partial):
    total: int = Field(description="Matching notes the caller may read.")
    items: list[MetaHitItem] = Field(description="This page of matching notes.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


def _meta_page(ctx: ToolContext, rows: list[Any], offset: int, limit: int, **state: Any) -> MetaHitsOut:
    window, cursor = page_of(rows, offset, limit, **state)
    items = [
        MetaHitItem(
            path=r.path,
            title=r.title,
            obsidian_url=ctx.vault.url(r.path),
            mtime=r.mtime,
            tags=r.tags,
            properties=r.properties,
        )
        for r in window
    ]
    return MetaHitsOut(total=len(rows), items=items, next_cursor=cursor, partial=partial(ctx))


# -- search_tags ---------------------------------------------------------------------------------


class SearchTagsIn(ToolInput, Paging):
    tags: list[str] = Field(
        min_length=1, max_length=50, description="Tags ('#' optional); 'proj' also matches nested 'proj/alpha'."
    )
    match: Literal["all", "any"] = Field(default="all", description="Notes with all of the tags, or any.")
    folder: FolderArg = FOLDER_FIELD
    sort: Literal["path", "mtime"] = sort_field("path", "path", "mtime")


async def search_tags(ctx: ToolContext, args: SearchTagsIn, dates: Window | None = None) -> MetaHitsOut:
    """`dates`: only notes modified in the window (search_vault's date filters)."""
    wanted = [tags.normalize(t) for t in args.tags]
    folders = scope(ctx, args.folder)
    key = query_key(sorted(wanted), args.match, folders, args.sort, *window_key(dates))
    offset = decode_cursor(args.cursor, t="tags", q=key)
    can_read = readable(ctx)
    vault_id = ctx.vault.id

    hits = await run(ctx, lambda conn: tags.search(conn, vault_id, wanted, args.match, folders, args.sort, can_read))
    hits = await drop_gone(ctx, within(hits, dates), offset, args.limit)
    window, cursor = page_of(hits, offset, args.limit, t="tags", q=key)
    found = await _properties_of(ctx, [h.note_id for h in window])
    items = [
        MetaHitItem(
            path=h.path,
            title=h.title,
            obsidian_url=ctx.vault.url(h.path),
            mtime=h.mtime,
            tags=h.tags,
            properties=found.get(h.note_id, {}),
        )
        for h in window
    ]
    return MetaHitsOut(total=len(hits), items=items, next_cursor=cursor, partial=partial(ctx))


async def _properties_of(ctx: ToolContext, ids: list[int]) -> dict[int, dict[str, Any]]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = await ctx.services.db.fetchall(f"SELECT id, properties FROM notes WHERE id IN ({marks})", ids)
    return {int(r[0]): json.loads(r[1] or "{}") for r in rows}


# -- search_properties ---------------------------------------------------------------------------


class FilterIn(BaseModel):
    key: str = Field(min_length=1, max_length=200, description="Property key, exactly as in frontmatter.")
    op: Literal["==", "!=", "contains", "<", "<=", ">", ">=", "exists", "not_exists"] = Field(
        default="==", description="Comparison; dates compare as instants, lists match on any item."
    )
    value: JsonValue = Field(default=None, description="Value to compare with (unused by exists/not_exists).")


class SearchPropertiesIn(ToolInput, Paging):
    filters: list[FilterIn] = Field(min_length=1, max_length=20, description="Conditions on properties.")
    match: Literal["all", "any"] = Field(default="all", description="Notes meeting all filters, or any.")
    folder: FolderArg = FOLDER_FIELD
    sort: Literal["path", "mtime", "title"] = sort_field("path", "path", "mtime", "title")


async def search_properties(ctx: ToolContext, args: SearchPropertiesIn, dates: Window | None = None) -> MetaHitsOut:
    """`dates`: only notes modified in the window (search_vault's date filters)."""
    filters = [props.Filter(f.key, f.op, f.value) for f in args.filters]
    folders = scope(ctx, args.folder)
    key = query_key([(f.key, f.op, f.value) for f in filters], args.match, folders, args.sort, *window_key(dates))
    offset = decode_cursor(args.cursor, t="props", q=key)
    can_read = readable(ctx)
    vault_id = ctx.vault.id
    rows = await run(ctx, lambda conn: props.search(conn, vault_id, filters, folders, args.sort, can_read, args.match))
    rows = await drop_gone(ctx, within(rows, dates), offset, args.limit)
    return _meta_page(ctx, rows, offset, args.limit, t="props", q=key)


# -- query_jsonlogic -----------------------------------------------------------------------------


class JsonLogicIn(ToolInput, Paging):
    logic: dict[str, Any] = Field(
        description="A JSONLogic rule over {path, folder, name, title, tags, aliases, properties, mtime, size, "
        'word_count}, e.g. {"and": [{"in": ["project", {"var": "tags"}]}, '
        '{">": [{"var": "properties.priority"}, 2]}]}.'
    )
    folder: FolderArg = FOLDER_FIELD
    sort: Literal["path", "mtime", "title"] = sort_field("path", "path", "mtime", "title")


async def query_jsonlogic(ctx: ToolContext, args: JsonLogicIn, dates: Window | None = None) -> MetaHitsOut:
    """`dates`: only notes modified in the window (search_vault's date filters)."""
    from service.retrieval import jsonlogic  # loaded on first use, not at start-up

    settings = ctx.services.settings
    match = jsonlogic.matcher(args.logic, settings.search.jsonlogic_max_ops, settings.limits)
    folders = scope(ctx, args.folder)
    key = query_key(args.logic, folders, args.sort, *window_key(dates))
    offset = decode_cursor(args.cursor, t="jsonlogic", q=key)
    can_read = readable(ctx)
    vault_id = ctx.vault.id
    order = {"path": "path", "mtime": "mtime DESC, path", "title": "title COLLATE NOCASE, path"}[args.sort]

    def query(conn: sqlite3.Connection) -> list[props.NoteRow]:
        where, params = folder_clause(folders, "path")
        sql = (
            "SELECT id, path, folder, title, aliases, tags, properties, mtime, size, word_count"
            f" FROM notes WHERE vault_id = ? AND {not_canvas()} AND {where} ORDER BY {order}"
        )
        out: list[props.NoteRow] = []
        for nid, path, folder, title, aliases, tag_json, prop_json, mtime, size, words in conn.execute(
            sql, [vault_id, *params]
        ):
            if not can_read(path):
                continue
            note_tags = json.loads(tag_json or "[]")
            note_props = json.loads(prop_json or "{}")
            data = {
                "path": path,
                "folder": folder,
                "name": path.rsplit("/", 1)[-1].removesuffix(".md"),
                "title": title,
                "tags": note_tags,
                "aliases": json.loads(aliases or "[]"),
                "properties": note_props,
                "mtime": mtime,
                "size": size,
                "word_count": words,
            }
            if match(data):
                out.append(props.NoteRow(nid, path, title, mtime, tag_json or "[]", prop_json or "{}"))
        return out

    rows = await drop_gone(ctx, within(await run(ctx, query), dates), offset, args.limit)
    return _meta_page(ctx, rows, offset, args.limit, t="jsonlogic", q=key)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_tags",
        domain="search",
        title="Search by tags",
        description="Notes carrying all (or any) of the given tags; nested tags match their parents ('proj' "
        "finds '#proj/alpha'); case-insensitive; '#' optional. Use it for tags alone; prefer "
        "search_notes to mix tags with text or properties, list_tags to discover tags.",
        input_model=SearchTagsIn,
        output_model=MetaHitsOut,
        handler=search_tags,
        tags=("search", "metadata"),
    ),
    ToolSpec(
        name="search_properties",
        domain="search",
        title="Search by properties",
        description="Notes whose frontmatter properties meet filters {key, op, value}: ==, !=, contains, <, "
        "<=, >, >=, exists, not_exists; strings (case-insensitive), numbers, booleans, dates and "
        "lists. Use it for typed property conditions; prefer query_jsonlogic for or/not logic, "
        "list_properties to discover keys.",
        input_model=SearchPropertiesIn,
        output_model=MetaHitsOut,
        handler=search_properties,
        tags=("search", "metadata"),
    ),
    ToolSpec(
        name="query_jsonlogic",
        domain="search",
        title="Query with JSONLogic",
        description="Notes for which a JSONLogic rule over their metadata (path, folder, title, tags, "
        "aliases, properties, mtime, size, word_count) is true; bounded by an operation budget. "
        "Use it for logic search_properties cannot express (or, not, path globs, arithmetic); it "
        "does not search note text.",
        input_model=JsonLogicIn,
        output_model=MetaHitsOut,
        handler=query_jsonlogic,
        tags=("search", "metadata"),
    ),
)
