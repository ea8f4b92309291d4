"""obsidian domain, Bases: query_base.

Evaluates an Obsidian Bases query — a `.base` file, the n-th ```` ```base ```` block of a note,
or inline YAML — with the native engine in `service.bases`, and returns one view's rows (its
columns as typed values, with `obsidian_url`), groups and summaries, paginated. Touches: the
`.base` file or note named (read, through the path ACL); index tables `notes` and `links`
through a snapshot cached per index generation (`service.bases.source`). Rows are cut to the
notes the caller may read before filters, limits, groups, summaries and backlinks are computed.
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, model_validator

from service.bases import model, query
from service.bases.blocks import base_blocks
from service.bases.env import Context
from service.bases.snapshot import Record, Snapshot, StatRecord
from service.bases.source import SnapshotCache, load_snapshot
from service.bases.values import cell
from service.errors import AclDenied, AmbiguousNote, NotANote, NoteNotFound, PathInvalid, ValidationFailed
from service.indexer.runner import indexer_of
from service.markdown.fences import unfence
from service.markdown.parse import note_title
from service.obsidian.attachments import with_extension_of
from service.storage.db import Database
from service.tools.context import ToolContext, link_target
from service.tools.models import JsonValue, NoteRef, Paging, ToolInput, ToolOutput, decode_cursor, page_of
from service.tools.search_common import Partial, partial, query_key, readable
from service.tools.spec import ToolSpec
from service.vault import dirfd
from service.vault.paths import VaultPath
from service.vault.vault import Vault

_SNAPSHOTS = SnapshotCache()


class QueryBaseIn(ToolInput, Paging):
    path: str | None = Field(
        default=None,
        description="A `.base` file, or a note holding ```base blocks (then `block` picks one); "
        "'.md' optional for notes; a name alone finds the note, else the `.base` file of that name; "
        "'Books.base#View' (an embed, `![[…]]` too) picks that view.",
    )
    block: int = Field(default=0, ge=0, description="Which ```base block of the note `path` (0 = the first).")
    yaml: str | None = Field(
        default=None, max_length=200_000, description="The base as inline YAML, instead of `path`."
    )
    this: str | None = Field(
        default=None,
        description="Note that `this` stands for (default: the .base file, or the note embedding the block).",
    )
    view: str | None = Field(default=None, description="View name (default: the first view).")

    @model_validator(mode="after")
    def _one_source(self) -> QueryBaseIn:
        if (self.path is None) == (self.yaml is None):
            raise ValueError("pass exactly one of `path` and `yaml`")
        return self


class BaseColumn(BaseModel):
    id: str = Field(description="Property id as the base names it: file.x, note.x or x, formula.x.")
    name: str = Field(description="Display name (`properties.<id>.displayName`, else the id).")


class BaseRow(NoteRef):
    group: int | None = Field(default=None, description="With groupBy: the `index` of the row's group.")
    values: dict[str, JsonValue] = Field(description="Column id -> {type, value}.")


class BaseGroup(BaseModel):
    index: int = Field(description="Position among all the view's groups (rows' `group` points here).")
    key: dict[str, JsonValue] = Field(description="The group's value as {type, value}.")
    count: int = Field(description="Rows in the group.")
    summaries: dict[str, JsonValue] = Field(description="Column id -> {summary, value} for this group.")


class QueryBaseOut(ToolOutput, Partial):
    view: str = Field(description="Name of the view evaluated.")
    view_type: str = Field(description="Its layout type (table, cards, list, map, ...).")
    views: list[str] = Field(description="Every view name of the base.")
    view_settings: dict[str, JsonValue] = Field(
        description="The view's other keys, kept as written (layout settings such as image, columnSize)."
    )
    columns: list[BaseColumn] = Field(description="The view's columns, in order.")
    matched: int = Field(description="Rows passing the filters, before the view's limit.")
    total: int = Field(description="Rows in the view (after its limit).")
    rows: list[BaseRow] = Field(description="This page of rows, in view order (grouped rows together).")
    groups: list[BaseGroup] | None = Field(
        default=None, description="With groupBy: the groups of this page's rows, with their full counts and summaries."
    )
    group_count: int | None = Field(default=None, description="With groupBy: how many groups the view has.")
    summaries: dict[str, JsonValue] = Field(description="Column id -> {summary, value} over all rows.")
    errors: list[dict[str, JsonValue]] = Field(
        description="Evaluation errors (the formula or filter, the note, the message); such cells are null."
    )
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


def snapshot_built(vault: Vault) -> bool:
    """Whether a query built the vault's Bases snapshot since start."""
    indexer = indexer_of(vault)
    return indexer is not None and _SNAPSHOTS.latest(indexer) is not None


def release_idle(idle_s: float) -> int:
    """Drop the Bases snapshots no query has read for `idle_s` seconds; how many were dropped."""
    return _SNAPSHOTS.release_idle(idle_s)


async def snapshot_of(vault: Vault, db: Database, *, query: bool = True) -> Snapshot:
    """The vault's Bases snapshot at the index's current generation, built (incrementally from
    the last one) when the index changed since; the background refresh usually did it already
    (it passes `query=False`: a refresh is no use that keeps an idle snapshot)."""
    indexer = indexer_of(vault)
    if indexer is None:
        return await db.run_read(lambda conn: load_snapshot(conn, vault.id, str(vault.paths.root), [], -1))
    generation = indexer.generation  # read first: a write meanwhile only makes the next call rebuild
    vault_id, root = vault.id, str(vault.paths.root)

    async def build(previous: Snapshot | None) -> Snapshot:
        files = indexer.files()
        return await db.run_read(lambda conn: load_snapshot(conn, vault_id, root, files, generation, previous))

    return await _SNAPSHOTS.current(indexer, generation, build, query=query)


async def _snapshot(ctx: ToolContext) -> Snapshot:
    return await snapshot_of(ctx.vault, ctx.services.db)


def _stat_record(root: Path, vp: VaultPath) -> Record:
    """The `this` record of a file the snapshot does not hold yet: its size and times from the
    file opened with no link followed on the way (`service.vault.dirfd`; an in-vault link is
    resolved first, as a read resolves it): a folder swapped for a link to outside since the
    call checked the path is `path_invalid`, never followed."""
    try:
        fd, st = dirfd.open_file(root, vp.real_rel or vp.abs.relative_to(root).as_posix())
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        raise NoteNotFound(f"no file at {vp.rel!r}", details={"path": vp.rel}) from None
    os.close(fd)
    return StatRecord(vp.rel, st.st_size, st.st_ctime, st.st_mtime, [], {}, [])


async def _source(ctx: ToolContext, args: QueryBaseIn, snap: Snapshot) -> tuple[str, int, Record | None, str]:
    """(YAML text, lines before it, the `this` record, a key naming the source)."""
    if args.yaml is not None:  # a ```base block pasted whole is read as the plugin reads it
        return unfence(args.yaml, "base"), 0, None, "inline"
    assert args.path is not None
    if args.path.lower().rstrip("]").endswith(".base"):
        vp = await ctx.find_file(args.path, "read")  # a bare name too, as `![[Books.base]]` names it
        data = await asyncio.to_thread(ctx.vault.files.read_bytes, vp)
        this = snap.by_path.get(vp.rel) or await asyncio.to_thread(_stat_record, ctx.vault.paths.root, vp)
        return data.decode("utf-8", errors="replace"), 0, this, vp.rel
    try:
        found = await ctx.find_note(args.path, "read", section="reject")
    except (NoteNotFound, NotANote):  # no note of that name: a folder 'Books' beside Books.base too
        name = with_extension_of("x.base", link_target(args.path).strip())  # 'Films v1.2' too, as a copy names it
        if not name.lower().endswith(".base") or not name[: -len(".base")].strip():
            raise
        try:  # a bare name of a .base file ('Drinks' for Views/Drinks.base), when no note has it
            return await _source(ctx, args.model_copy(update={"path": name}), snap)
        except (NoteNotFound, PathInvalid, AclDenied):
            pass  # the note's own answer: nothing is told of a .base file the caller may not read
        raise
    note = await asyncio.to_thread(ctx.vault.files.read, found.vp)
    blocks = base_blocks(note.content)
    if args.block >= len(blocks):
        details: dict[str, Any] = {"field": "block", "blocks": len(blocks), "path": found.vp.rel}
        hint = None
        if not blocks:  # `books` names Categories/Books.md, which only embeds ![[Books.base]]
            details["bases"] = await _bases_meant(ctx, args.path, note.content)
            if details["bases"]:
                hint = "The note holds no ```base block: pass one of details.bases (a .base file) as path."
        raise ValidationFailed(
            f"{found.vp.rel!r} has {len(blocks)} ```base block(s); there is no block {args.block}",
            details=details,
            hint=hint,
        )
    block = blocks[args.block]
    this = snap.by_path.get(found.vp.rel) or await asyncio.to_thread(_stat_record, ctx.vault.paths.root, found.vp)
    return block.text, block.line, this, f"{found.vp.rel}#{args.block}"


MAX_EMBEDS_TRIED = 20  # a note embedding thousands of missing bases: a few lookups for one error answer
_BASE_EMBED = re.compile(r"!\[\[([^\]|#\n]+\.base)\s*(?:[|#][^\]\n]*)?\]\]", re.IGNORECASE)


async def _bases_meant(ctx: ToolContext, address: str, content: str) -> list[str]:
    """The .base files a query of a note without a ```base block may have meant: those the note
    embeds (`![[Books.base]]`, as a category note shows its base: the first `MAX_EMBEDS_TRIED`
    names), then one of the name given."""
    embedded = dict.fromkeys(m[1].strip() for m in _BASE_EMBED.finditer(content))  # each name once, in order
    names = [*list(embedded)[:MAX_EMBEDS_TRIED], f"{link_target(address).strip()}.base"]
    out: list[str] = []
    for name in names:
        try:
            vp = await ctx.find_file(name, "read")
        except (NoteNotFound, NotANote, PathInvalid, AclDenied, ValidationFailed, AmbiguousNote):
            continue
        if vp.rel not in out:
            out.append(vp.rel)
        if len(out) == 5:
            break
    return out


def _embedded(args: QueryBaseIn) -> QueryBaseIn:
    """A base named as a note embeds it (`![[Books.base#Reading|shown]]`, `Books.base#Reading`): the
    `.base` file, and the view after '#' (Obsidian's embed of that view) unless `view` is given."""
    name, _, view = link_target(args.path or "").partition("#")
    if args.path is None or not name.strip().lower().endswith(".base"):
        return args
    return args.model_copy(update={"path": name.strip(), "view": args.view if args.view is not None else view or None})


async def query_base(ctx: ToolContext, args: QueryBaseIn) -> QueryBaseOut:
    args = _embedded(args)
    snap = await _snapshot(ctx)
    text, line_offset, this, source = await _source(ctx, args, snap)
    if args.this is not None:
        found = await ctx.find_note(args.this, "read", section="reject")
        this = snap.by_path.get(found.vp.rel) or await asyncio.to_thread(_stat_record, ctx.vault.paths.root, found.vp)
    key = query_key(source, text, args.view, args.this)
    offset = decode_cursor(args.cursor, t="base", q=key)
    base = model.load(text, line_offset, ctx.services.settings.limits)
    view = query.pick_view(base, args.view)
    can_read = readable(ctx)
    visible = snap if can_read.everything else snap.visible(can_read)
    settings = ctx.services.settings.search
    budget = Context(visible, this, settings.bases_max_steps, settings.bases_max_seconds, ctx.services.settings.limits)
    result = await asyncio.to_thread(query.run, base, view, visible, budget)
    window, cursor = page_of(result.rows, offset, args.limit, t="base", q=key)
    page_values = await asyncio.to_thread(result.cells, window)
    rows = [
        BaseRow(
            path=row.record.path,
            title=note_title(row.record.path),
            obsidian_url=ctx.vault.url(row.record.path),
            group=row.group,
            values={c: cell(v) for c, v in values.items()},
        )
        for row, values in zip(window, page_values, strict=True)
    ]
    groups: list[BaseGroup] | None = None
    if result.groups is not None:
        shown = sorted({row.group for row in window if row.group is not None})
        groups = [
            BaseGroup(
                index=i,
                key=cell(result.groups[i].key),
                count=len(result.groups[i].rows),
                summaries=result.groups[i].summaries,
            )
            for i in shown
        ]
    return QueryBaseOut(
        view=view.name,
        view_type=view.type,
        views=[v.name for v in base.views],
        view_settings=view.extra,
        columns=[BaseColumn(id=c, name=n) for c, n in result.columns],
        matched=result.matched,
        total=len(result.rows),
        rows=rows,
        groups=groups,
        group_count=len(result.groups) if result.groups is not None else None,
        summaries=result.summaries,
        errors=_plain(result.errors),
        next_cursor=cursor,
        partial=partial(ctx),
    )


def _plain(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [dict(e) for e in errors]


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="query_base",
        domain="obsidian",
        title="Query an Obsidian Base",
        description="Evaluate an Obsidian Bases query (a .base file, a ```base block of a note, or inline "
        "YAML) as Obsidian would: filters, formulas, sort, groupBy, limit and summaries of one view, with "
        "the whole function library. Returns the view's rows (its columns as typed values), groups and "
        "summaries; syntax errors are bases_syntax_error with line/column and the offending token. "
        "write_note and create_note write a .base file.",
        input_model=QueryBaseIn,
        output_model=QueryBaseOut,
        handler=query_base,
        tags=("obsidian", "bases", "query"),
    ),
)
