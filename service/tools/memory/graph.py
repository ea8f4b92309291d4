"""memory domain, reading and pruning the graph: read_memory_graph, search_memory, memory_store,
delete_entities, delete_observations, delete_relations.

`search_memory` ranks single observations (the units searched) by the words they share with the
query, BM25-weighted over the caller's readable entity notes, with the entity's name and type
counted as context of each of its observations. It and `read_memory_graph` show observations the
caller did not ask for by name as the search tools show text: under the vault's `[sensitive]` mode
(`redact`, the default, replaces each secret span) — open_nodes returns what is written; each
observation is flagged `sensitive` whatever the mode. `delete_entities` moves entity notes to the
vault's trash as `delete_note` does, after a human's confirmation that lists every note.
Touches: the memory folder's notes only.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Any

from pydantic import AliasChoices, Field

from service.errors import AlreadyExists, ValidationFailed
from service.memory.history import History
from service.memory.model import Entity, Observation, normalize_text, tags_of
from service.memory.recall import Hit, Recall
from service.memory.when import span_of
from service.tools.context import ToolContext
from service.tools.memory.adding import add_to
from service.tools.memory.entities import EntityOut, RelationOut, entity_out
from service.tools.memory.names import entity_name, target_name, target_names
from service.tools.memory.prechecks import entities_there, visible
from service.tools.memory.report import left_out
from service.tools.memory.writing import WRITE, entity_store, observation_text, provenance
from service.tools.models import ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.sensitive import guard_of
from service.tools.spec import ToolSpec
from service.vault.casing import CaseTwin

# -- read_memory_graph -------------------------------------------------------------------------


def entity_type_field() -> Any:
    """The entity-type filter, `entityType` as the other memory tools and the MCP memory server's
    shapes spell it (the schema shows it); `entity_type`, its name before s76, is still taken."""
    return Field(
        default=None,
        max_length=100,
        validation_alias=AliasChoices("entityType", "entity_type"),
        description="Only entities of this type (entity_type is taken too).",
    )


class ReadGraphIn(ToolInput):
    entity_type: str | None = entity_type_field()
    updated_since: str | None = Field(
        default=None, max_length=40, description="Only entities updated at or after this ISO date/time."
    )
    limit: int = Field(default=50, ge=1, le=500, description="Entities per page.")
    cursor: str | None = Field(default=None, description="`next_cursor` from the previous page.")


class ReadGraphOut(ToolOutput):
    entities: list[EntityOut] = Field(description="Entities of this page, by note path.")
    relations: list[RelationOut] = Field(description="Relations from the entities of this page.")
    total: int = Field(description="Entities matching the filters.")
    next_cursor: str | None = Field(description="Cursor for the next page, None at the end.")
    truncated: bool = Field(
        default=False, description="Observations were left out to fit the response limit (observations_left_out)."
    )
    observations_left_out: list[str] = Field(
        default_factory=list,
        description="Entities of this page listed without their observations, the biggest, so the page fits the "
        "response limit (search_memory finds their observations).",
    )


_ISO = re.compile(r"\d{4}(?:-\d{2}(?:-\d{2}(?:[T ][0-9:.]*(?:Z|[+-]\d{2}:?\d{2})?)?)?)?")


def not_a_date(field: str, value: str, forms: str) -> ValidationFailed:
    """A bound that names no day (`yesterday`, `12/05/2023`): compared as text it kept nothing, silently."""
    return ValidationFailed(
        f"{field} {value[:40]!r} is not a date",
        details={"field": field, "reason": "not_a_date"},
        hint=f"Give {field} as {forms}.",
    )


async def read_memory_graph(ctx: ToolContext, args: ReadGraphIn) -> ReadGraphOut:
    """Read in a worker thread: every entity note is read (a page is chosen among them all)."""
    if args.updated_since is not None and not _ISO.fullmatch(args.updated_since.strip()):
        raise not_a_date("updated_since", args.updated_since, "an ISO date or time: 2026-11-28, 2026-11-28T07:50:00Z")
    return await asyncio.to_thread(_graph_page, ctx, args)


def _graph_page(ctx: ToolContext, args: ReadGraphIn) -> ReadGraphOut:
    store = entity_store(ctx)
    state = {"t": args.entity_type, "u": args.updated_since}
    offset = decode_cursor(args.cursor, **state)
    everything = list(store.entities())
    names = target_names(everything)
    chosen = [
        e
        for e in everything
        if (args.entity_type is None or e.entity.entity_type.lower() == args.entity_type.lower())
        and (args.updated_since is None or (e.entity.updated or e.entity.created) >= args.updated_since)
    ]
    page = chosen[offset : offset + args.limit]
    relations = [
        RelationOut(
            **{
                "from": e.entity.name,
                "to": target_name(r.target, names, store.folder),
                "relationType": r.relation_type,
            }
        )
        for e in page
        for r in e.entity.relations
    ]
    more = offset + len(page) < len(chosen)
    out = ReadGraphOut(
        entities=[entity_out(ctx, e, found=True) for e in page],
        relations=relations,
        total=len(chosen),
        next_cursor=encode_cursor(offset + args.limit, **state) if more else None,
    )
    out.observations_left_out = left_out(out, out.entities, ctx.services.settings.governor.max_response_bytes)
    out.truncated = bool(out.observations_left_out)
    return out


# -- search_memory -----------------------------------------------------------------------------


class SearchMemoryIn(ToolInput):
    query: str = Field(min_length=1, max_length=2000, description="What to find, in words.")
    limit: int = Field(default=10, ge=1, le=100, description="Observations to return.")
    entity_type: str | None = entity_type_field()
    since: str | None = Field(default=None, max_length=40, description="Only observations dated (or recorded) from.")
    until: str | None = Field(default=None, max_length=40, description="Only observations dated (or recorded) until.")


class MemoryHit(ToolOutput):
    entity: str = Field(description="The entity.")
    entityType: str = Field(description="Its type.")  # noqa: N815
    text: str = Field(description="The observation.")
    block_id: str = Field(description="Its block id (empty for a hand-written line without one).")
    category: str | None = Field(default=None, description="Its category.")
    date: str | None = Field(default=None, description="The date it is about.")
    recorded: str | None = Field(default=None, description="When it was recorded.")
    by: str | None = Field(default=None, description="Who recorded it: a hash of the caller's identity (8 hex digits).")
    source: str | None = Field(default=None, description="Where it came from.")
    tags: list[str] = Field(default_factory=list, description="The #tags its text holds, without '#'.")
    valid_until: str | None = Field(default=None, description="Superseded: until when it held, if given.")
    superseded_by: str | None = Field(
        default=None, description="Superseded: the block id of the observation that replaces it (null: current)."
    )
    sensitive: bool = Field(
        default=False, description="It holds a secret or names a health/money topic: ask before passing it on."
    )
    score: float = Field(description="Relevance (higher is better).")
    path: str = Field(description="The entity's note.")
    obsidian_url: str = Field(description="obsidian:// URL of the observation's block (or note).")


class SearchMemoryOut(ToolOutput):
    items: list[MemoryHit] = Field(
        description="Observations, best first: the current ones, then the superseded ones (superseded_by set)."
    )
    by_meaning: bool = Field(description="Whether vectors ranked them too (false: words only; embeddings are off).")
    vectors_pending: int = Field(
        description="Observations still waiting for their vector (ranked by words alone until they have one)."
    )


def _dated(obs: Observation) -> str:
    return obs.fields.get("date") or obs.fields.get("recorded") or ""


def recall_for(ctx: ToolContext) -> Recall:
    if ctx.services.recall is None:  # pragma: no cover - the app always has one
        raise RuntimeError("no memory recall index")
    return ctx.services.recall.of(ctx.vault)


async def search_memory(ctx: ToolContext, args: SearchMemoryIn) -> SearchMemoryOut:
    recall = recall_for(ctx)
    ctx.resolve(recall.folder, "read")  # a caller denied the memory folder is told so, as by every memory tool
    await recall.refresh()
    vector = None
    if recall.model is not None and ctx.services.semantic is not None:
        with contextlib.suppress(Exception):  # the model failed to load: words only
            vector = await ctx.services.semantic.query_vector(args.query)
    kind = args.entity_type.lower() if args.entity_type else None
    since, until = args.since, args.until
    first, last = span_of(since) if since else None, span_of(until) if until else None
    for field, bound, span in (("since", since, first), ("until", until, last)):
        if bound and span is None:
            raise not_a_date(field, bound, "a day, a month or a year: 2023-05-08, 8 May 2023, May 2023, 2023-05, 2023")

    def keep_obs(obs: Observation) -> bool:
        # compared as days where both are dates in any form ("8 May, 2023", "May 2023", "2023" against
        # "2023-05"): an observation about a month or a year is kept while that span reaches the bounds;
        # else as text
        when = _dated(obs)
        span = span_of(when) if when else None
        early = since and when and (span[1] < first[0] if span is not None and first else when < since)
        late = until and when and (span[0] > last[1] if span is not None and last else when[: len(until)] > until)
        return not (early or late)

    hits = recall.search(
        args.query,
        vector,
        limit=args.limit,
        readable=ctx.walk_filter(),
        keep=(lambda e: e.entity.entity_type.lower() == kind) if kind else None,
        keep_obs=keep_obs if since or until else None,
    )
    items = []
    guard = guard_of(ctx)  # found by words, not asked for by path: secrets shown as the search tools show them
    histories: dict[int, History] = {}  # by entry: each entity's supersessions, read once

    def history(hit: Hit) -> History:
        if (known := histories.get(id(hit.entry))) is None:
            known = histories[id(hit.entry)] = History(hit.entry.entity.observations)
        return known

    hits = sorted(hits, key=lambda hit: history(hit).ended(hit.observation))  # current facts first, stable
    for hit in hits:
        e, obs, rel = hit.entry.entity, hit.observation, hit.entry.rel
        url = ctx.vault.url(rel) + (f"%23%5E{obs.block_id}" if obs.block_id else "")
        items.append(
            MemoryHit(
                entity=e.name,
                entityType=e.entity_type,
                text=guard.excerpt(obs.text),
                block_id=obs.block_id,
                category=obs.category,
                date=obs.fields.get("date"),
                recorded=obs.fields.get("recorded"),
                by=obs.fields.get("by"),
                source=guard.excerpt(source) if (source := obs.fields.get("source")) else None,
                tags=tags_of(obs.text),
                valid_until=history(hit).until(obs),
                superseded_by=history(hit).by(obs),
                sensitive=guard.sensitive(obs.text),
                score=round(hit.score, 4),
                path=rel,
                obsidian_url=url,
            )
        )
    return SearchMemoryOut(items=items, by_meaning=vector is not None, vectors_pending=recall.pending)


# -- memory_store ------------------------------------------------------------------------------


class MemoryStoreIn(ToolInput):
    key: str = Field(max_length=200, description="What the fact is about: the entity it is kept under.")
    value: str = Field(max_length=10_000, description="The fact.")
    source: str | None = Field(default=None, max_length=300, description="The note or conversation it came from.")


class MemoryStoreOut(ToolOutput):
    stored: bool = Field(description="False when the entity already held this fact.")
    key: str = Field(description="The entity it is kept under.")
    path: str = Field(description="The entity's note.")
    block_id: str = Field(description="The observation's block id.")


async def memory_store(ctx: ToolContext, args: MemoryStoreIn) -> MemoryStoreOut:
    store = entity_store(ctx)
    key = entity_name(ctx, store, args.key, "key")
    value = observation_text(args.value, "value")
    fields = provenance(ctx, args.source)
    if store.load(key, "write") is None:  # made with its fact in one write: never an empty entity left
        visible(store, key, "key")
        made = Entity(key, "memory")
        first = add_to(made, [value], None, fields)[0]
        try:
            loaded = await store.create(made)
        except AlreadyExists as exc:  # made by a concurrent call: add to it (a case twin: refused)
            if isinstance(exc, CaseTwin):
                raise
        else:
            return MemoryStoreOut(stored=True, key=loaded.entity.name, path=loaded.vp.rel, block_id=first[0].block_id)
    block: list[str] = []
    stored: list[bool] = []

    def change(e: Entity) -> bool:
        added, _, _ = add_to(e, [value], None, fields)
        same = [o.block_id for o in e.observations if normalize_text(o.text) == normalize_text(value)]
        block[:] = [o.block_id for o in added] or same
        stored[:] = [bool(added)]
        return bool(added)

    loaded = await store.update(key, change)
    return MemoryStoreOut(
        stored=stored[0], key=loaded.entity.name, path=loaded.vp.rel, block_id=block[0] if block else ""
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_memory",
        domain="memory",
        title="Search memory",
        description="Find single observations of the agent memory by the words they share with the query (BM25; "
        "the entity's name counts), filtered by entity type and dates; each with its entity, block id and "
        "provenance.",
        input_model=SearchMemoryIn,
        output_model=SearchMemoryOut,
        handler=search_memory,
        reads_index=False,
        tags=("memory",),
    ),
    ToolSpec(
        name="read_memory_graph",
        domain="memory",
        title="Read the memory graph",
        description="Every memory entity with its observations and relations, paginated, filtered by entity type "
        "and updated-since.",
        input_model=ReadGraphIn,
        output_model=ReadGraphOut,
        handler=read_memory_graph,
        reads_index=False,
        tags=("memory",),
    ),
    ToolSpec(
        name="memory_store",
        domain="memory",
        title="Store a fact",
        description="Keep one fact (value) under a key: an observation of the entity named by the key (made when "
        "missing), found by search_memory.",
        input_model=MemoryStoreIn,
        output_model=MemoryStoreOut,
        handler=memory_store,
        static_check=entities_there("memory_store"),  # a dry-run preview and a plan refuse its arguments too
        tags=("memory",),
        **WRITE,  # type: ignore[arg-type]
    ),
)
