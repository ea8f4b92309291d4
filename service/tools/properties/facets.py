"""properties domain, facets: list_tags, list_properties, property_values — the vault's tags,
property keys and values with how many notes use each.

Touches: index tables `notes`, `note_tags`, `note_properties` (read only, through
`service.retrieval`). Counts are of notes the caller may read, so a denied note cannot be
inferred from a number. Lists paginate with `limit`/`cursor`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from service.retrieval import properties as props
from service.retrieval import tags
from service.tools.context import ToolContext
from service.tools.models import JsonValue, Paging, ToolInput, ToolOutput, decode_cursor, page_of
from service.tools.obsidian.config import declared_types
from service.tools.search_common import FOLDER_FIELD, FolderArg, query_key, readable, run, scope
from service.tools.spec import ToolSpec

# -- list_tags -----------------------------------------------------------------------------------


class ListTagsIn(ToolInput, Paging):
    prefix: str | None = Field(default=None, description="Only this tag and its nested tags (e.g. 'proj').")
    folder: FolderArg = FOLDER_FIELD
    sort: Literal["tag", "count"] = Field(default="tag", description="By tag (tree order) or by count, highest first.")
    limit: int = Field(default=200, ge=1, le=2000, description="Page size.")


class TagItem(BaseModel):
    tag: str = Field(description="Tag without '#', e.g. 'project/alpha'.")
    count: int = Field(description="Notes with this tag or one nested under it.")
    direct: int = Field(description="Notes with exactly this tag.")
    depth: int = Field(description="0 for a top-level tag, 1 for 'a/b', ...")
    parent: str | None = Field(default=None, description="The enclosing tag ('a' for 'a/b').")


class ListTagsOut(ToolOutput):
    total: int = Field(
        description="Distinct tags matching the filters, letter case ignored, including the parents of nested "
        "tags that no note writes itself (`tools` above `tools/x`), as Obsidian's tag pane lists them; so it can "
        "be larger than `index_status`' `tags`, which counts only tags written in notes."
    )
    items: list[TagItem] = Field(description="This page of tags.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


async def list_tags(ctx: ToolContext, args: ListTagsIn) -> ListTagsOut:
    folders = scope(ctx, args.folder)
    key = query_key(args.prefix, folders, args.sort)
    offset = decode_cursor(args.cursor, t="list_tags", q=key)
    can_read = readable(ctx)
    vault_id = ctx.vault.id
    counted = await run(ctx, lambda conn: tags.tree(conn, vault_id, folders, args.prefix, can_read))
    if args.sort == "count":
        counted.sort(key=lambda t: (-t.count, t.tag.lower()))
    window, cursor = page_of(counted, offset, args.limit, t="list_tags", q=key)
    items = [TagItem(tag=t.tag, count=t.count, direct=t.direct, depth=t.depth, parent=t.parent) for t in window]
    return ListTagsOut(total=len(counted), items=items, next_cursor=cursor)


# -- list_properties / property_values -----------------------------------------------------------


class ListPropertiesIn(ToolInput, Paging):
    folder: FolderArg = FOLDER_FIELD
    limit: int = Field(default=200, ge=1, le=2000, description="Page size.")


class PropertyKeyItem(BaseModel):
    key: str = Field(description="Property key.")
    type: str = Field(description="Inferred Obsidian type: text, list, number, checkbox, date, datetime, empty.")
    declared: str | None = Field(
        default=None,
        description="The type this vault gives the name in .obsidian/types.json (text, multitext, number, checkbox, "
        "date, datetime; tags, aliases and cssclasses are built in), which Obsidian shows and set_properties "
        "writes; null: none, Obsidian infers it.",
    )
    types: dict[str, int] = Field(description="How many notes hold each type (mixed types are visible here).")
    count: int = Field(description="Notes with the key.")


class ListPropertiesOut(ToolOutput):
    total: int = Field(description="Distinct keys.")
    items: list[PropertyKeyItem] = Field(description="This page of keys, sorted by key.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


async def list_properties(ctx: ToolContext, args: ListPropertiesIn) -> ListPropertiesOut:
    folders = scope(ctx, args.folder)
    key = query_key(folders)
    offset = decode_cursor(args.cursor, t="list_props", q=key)
    can_read = readable(ctx)
    vault_id = ctx.vault.id
    infos = await run(ctx, lambda conn: props.keys(conn, vault_id, folders, can_read))
    window, cursor = page_of(infos, offset, args.limit, t="list_props", q=key)
    kinds = declared_types(ctx)
    items = [
        PropertyKeyItem(key=i.key, type=i.type, declared=kinds.get(i.key.lower()), types=i.types, count=i.count)
        for i in window
    ]
    return ListPropertiesOut(total=len(infos), items=items, next_cursor=cursor)


class PropertyValuesIn(ToolInput, Paging):
    key: str = Field(min_length=1, max_length=200, description="Property key.")
    folder: FolderArg = FOLDER_FIELD
    limit: int = Field(default=100, ge=1, le=2000, description="Page size.")


class ValueItem(BaseModel):
    value: JsonValue = Field(description="The value (list properties are counted item by item).")
    type: str = Field(description="string, number, boolean, date, datetime, null or object.")
    count: int = Field(description="Notes holding the value.")


class PropertyValuesOut(ToolOutput):
    key: str = Field(description="The key.")
    total: int = Field(description="Distinct values.")
    items: list[ValueItem] = Field(description="This page of values, most frequent first.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


async def property_values(ctx: ToolContext, args: PropertyValuesIn) -> PropertyValuesOut:
    folders = scope(ctx, args.folder)
    key = query_key(args.key, folders)
    offset = decode_cursor(args.cursor, t="prop_values", q=key)
    can_read = readable(ctx)
    vault_id = ctx.vault.id
    counted = await run(ctx, lambda conn: props.values(conn, vault_id, args.key, folders, can_read))
    window, cursor = page_of(counted, offset, args.limit, t="prop_values", q=key)
    items = [ValueItem(value=v.value, type=v.type, count=v.count) for v in window]
    return PropertyValuesOut(key=args.key, total=len(counted), items=items, next_cursor=cursor)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="list_tags",
        domain="properties",
        title="List tags",
        description="Every tag with note counts and its place in the nested hierarchy (parent, depth). To "
        "find the notes carrying a tag use search_tags.",
        input_model=ListTagsIn,
        output_model=ListTagsOut,
        handler=list_tags,
        tags=("search", "metadata"),
    ),
    ToolSpec(
        name="list_properties",
        domain="properties",
        title="List property keys",
        description="Every frontmatter property key with its inferred type and how many notes use it.",
        input_model=ListPropertiesIn,
        output_model=ListPropertiesOut,
        handler=list_properties,
        tags=("search", "metadata"),
    ),
    ToolSpec(
        name="property_values",
        domain="properties",
        title="List property values",
        description="Distinct values of one property with how many notes hold each, most frequent first.",
        input_model=PropertyValuesIn,
        output_model=PropertyValuesOut,
        handler=property_values,
        tags=("search", "metadata"),
    ),
)
