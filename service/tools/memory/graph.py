"""memory domain, reading and pruning the graph: read_memory_graph, search_memory, memory_store,
delete_entities, delete_observations, delete_relations.

`search_memory` ranks single observations (the units searched) by the words they share with the
query, BM25-weighted over the caller's readable entity notes, with the entity's name and type
counted as context of each of its observations. `delete_entities` moves entity notes to the
vault's trash as `delete_note` does, after a human's confirmation that lists every note.
Touches: the memory folder's notes only.
"""

from __future__ import annotations

import contextlib
from functools import partial

from pydantic import BaseModel, ConfigDict, Field

from service.errors import AlreadyExists
from service.memory.model import Entity, Observation, normalize_text
from service.memory.recall import Recall
from service.memory.store import EntityStore, Loaded, check_name
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.tools.memory.entities import (
    EntityOut,
    RelationOut,
    add_to,
    all_or_nothing,
    entity_out,
    entity_store,
    observation_text,
    provenance,
)
from service.tools.models import ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.spec import ToolSpec
from service.vault.commit import Action, Undo

# -- read_memory_graph -------------------------------------------------------------------------


class ReadGraphIn(ToolInput):
    entity_type: str | None = Field(default=None, max_length=100, description="Only entities of this type.")
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


async def read_memory_graph(ctx: ToolContext, args: ReadGraphIn) -> ReadGraphOut:
    store = entity_store(ctx)
    state = {"t": args.entity_type, "u": args.updated_since}
    offset = decode_cursor(args.cursor, **state)
    everything = list(store.entities())
    names = {e.vp.rel.removesuffix(".md").lower(): e.entity.name for e in everything}
    chosen = [
        e
        for e in everything
        if (args.entity_type is None or e.entity.entity_type.lower() == args.entity_type.lower())
        and (args.updated_since is None or (e.entity.updated or e.entity.created) >= args.updated_since)
    ]
    page = chosen[offset : offset + args.limit]
    relations = [
        RelationOut(
            **{"from": e.entity.name, "to": names.get(r.target.lower(), r.target), "relationType": r.relation_type}
        )
        for e in page
        for r in e.entity.relations
    ]
    more = offset + len(page) < len(chosen)
    return ReadGraphOut(
        entities=[entity_out(ctx, e) for e in page],
        relations=relations,
        total=len(chosen),
        next_cursor=encode_cursor(offset + args.limit, **state) if more else None,
    )


# -- search_memory -----------------------------------------------------------------------------


class SearchMemoryIn(ToolInput):
    query: str = Field(min_length=1, max_length=2000, description="What to find, in words.")
    limit: int = Field(default=10, ge=1, le=100, description="Observations to return.")
    entity_type: str | None = Field(default=None, max_length=100, description="Only entities of this type.")
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
    source: str | None = Field(default=None, description="Where it came from.")
    score: float = Field(description="Relevance (higher is better).")
    path: str = Field(description="The entity's note.")
    obsidian_url: str = Field(description="obsidian:// URL of the observation's block (or note).")


class SearchMemoryOut(ToolOutput):
    items: list[MemoryHit] = Field(description="Observations, best first.")
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

    def keep_obs(obs: Observation) -> bool:
        when = _dated(obs)
        return not ((since and when and when < since) or (until and when and when[: len(until)] > until))

    hits = recall.search(
        args.query,
        vector,
        limit=args.limit,
        readable=ctx.walk_filter(),
        keep=(lambda e: e.entity.entity_type.lower() == kind) if kind else None,
        keep_obs=keep_obs if since or until else None,
    )
    items = []
    for hit in hits:
        e, obs, rel = hit.entry.entity, hit.observation, hit.entry.rel
        url = ctx.vault.url(rel) + (f"%23%5E{obs.block_id}" if obs.block_id else "")
        items.append(
            MemoryHit(
                entity=e.name,
                entityType=e.entity_type,
                text=obs.text,
                block_id=obs.block_id,
                category=obs.category,
                date=obs.fields.get("date"),
                recorded=obs.fields.get("recorded"),
                source=obs.fields.get("source"),
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
    key = check_name(args.key, "key")
    value = observation_text(args.value, "value")
    if store.load(key, "write") is None:
        with contextlib.suppress(AlreadyExists):  # made by a concurrent call: add to it
            await store.create(Entity(key, "memory"))
    block: list[str] = []
    stored: list[bool] = []

    def change(e: Entity) -> bool:
        added, _, _ = add_to(e, [value], None, provenance(ctx, args.source))
        same = [o.block_id for o in e.observations if normalize_text(o.text) == normalize_text(value)]
        block[:] = [o.block_id for o in added] or same
        stored[:] = [bool(added)]
        return bool(added)

    loaded = await store.update(key, change)
    return MemoryStoreOut(
        stored=stored[0], key=loaded.entity.name, path=loaded.vp.rel, block_id=block[0] if block else ""
    )


# -- deletions ---------------------------------------------------------------------------------


class DeleteEntitiesIn(ToolInput):
    entityNames: list[str] = Field(min_length=1, max_length=100, description="Entities to delete.")  # noqa: N815


class DeleteEntitiesOut(ToolOutput):
    deleted: list[str] = Field(description="Entities whose notes went to the trash.")
    trash: list[str] = Field(description="Where each note went, in order.")
    missing: list[str] = Field(description="Names that are no entity.")
    dangling_relations: list[RelationOut] = Field(description="Relations of other entities that pointed at them.")


async def delete_entities_preview(ctx: ToolContext, args: DeleteEntitiesIn) -> ChangePreview | None:
    store = entity_store(ctx)
    paths = []
    for i, raw in enumerate(args.entityNames):
        found = store.load(check_name(raw, f"entityNames[{i}]"), "delete")
        if found is not None:
            paths.append(found.vp.rel)
    if not paths:
        return None
    return ChangePreview.of(f"move {len(paths)} memory entity note(s) to the trash", paths)


async def delete_entities(ctx: ToolContext, args: DeleteEntitiesIn) -> DeleteEntitiesOut:
    store = entity_store(ctx)
    found = []
    missing = []
    for i, raw in enumerate(args.entityNames):
        name = check_name(raw, f"entityNames[{i}]")
        loaded = store.load(name, "delete")
        (found.append(loaded) if loaded is not None else missing.append(name))
    stems = {f.vp.rel.removesuffix(".md").lower(): f.entity.name for f in found}
    dangling = [
        RelationOut(**{"from": e.entity.name, "to": stems[r.target.lower()], "relationType": r.relation_type})
        for e in store.entities()
        if e.vp.rel.removesuffix(".md").lower() not in stems
        for r in e.entity.relations
        if r.target.lower() in stems
    ]
    trash: list[str] = []

    def trashing(loaded: Loaded) -> Action:
        async def action() -> Undo:
            to = await ctx.vault.files.delete(loaded.vp, permanent=False, expected_etag=loaded.etag) or ""
            trash.append(to)
            back = ctx.vault.paths.resolve(to, allow_hidden=True, op="write")
            return partial(ctx.vault.files.move, back, loaded.vp)

        return action

    await all_or_nothing(ctx, [trashing(f) for f in found], f"delete_entities of {len(found)} entities")
    return DeleteEntitiesOut(
        deleted=[f.entity.name for f in found], trash=trash, missing=missing, dangling_relations=dangling
    )


class Deletion(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entityName: str = Field(max_length=10_000, description="The entity.")  # noqa: N815
    observations: list[str] = Field(min_length=1, max_length=1000, description="Observations: their text or block id.")


class DeleteObservationsIn(ToolInput):
    deletions: list[Deletion] = Field(min_length=1, max_length=100, description="Per entity.")


class DeleteObservationsOut(ToolOutput):
    deleted: int = Field(description="Observations removed.")
    not_found: list[str] = Field(description="Texts or block ids that matched no observation.")


async def delete_observations(ctx: ToolContext, args: DeleteObservationsIn) -> DeleteObservationsOut:
    store = entity_store(ctx)
    plans = []
    for i, d in enumerate(args.deletions):
        name = check_name(d.entityName, f"deletions[{i}].entityName")
        store.require(name, "write")
        plans.append((name, d.observations))
    result: dict[int, tuple[int, list[str]]] = {}  # deletion -> (removed, texts that matched nothing)

    def change(e: Entity, members: list[int]) -> bool:
        for i in members:
            wanted = plans[i][1]
            keys = {normalize_text(w) for w in wanted} | {w.lstrip("^") for w in wanted}
            hit = {normalize_text(o.text) for o in e.observations} | {o.block_id for o in e.observations}
            keep = [o for o in e.observations if normalize_text(o.text) not in keys and o.block_id not in keys]
            miss = [w for w in wanted if normalize_text(w) not in hit and w.lstrip("^") not in hit]
            result[i] = (len(e.observations) - len(keep), miss)
            e.observations = keep
        return any(result[i][0] for i in members)

    groups = _by_note(store, [name for name, _ in plans])
    actions = [store.updating(plans[m[0]][0], partial(change, members=m)) for m in groups]
    await all_or_nothing(ctx, actions, f"delete_observations on {len(actions)} entities")
    return DeleteObservationsOut(
        deleted=sum(n for n, _ in result.values()), not_found=[w for i in sorted(result) for w in result[i][1]]
    )


def _by_note(store: EntityStore, names: list[str]) -> list[list[int]]:
    """The positions of `names`, grouped by entity note (one write per note), in first-seen order."""
    groups: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        groups.setdefault(store.path_of(name, "write").rel, []).append(i)
    return list(groups.values())


class OldRelation(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    from_: str = Field(alias="from", max_length=10_000, description="Source entity.")
    to: str = Field(max_length=10_000, description="Target entity or note.")
    relationType: str = Field(max_length=100, description="Relation type.")  # noqa: N815


class DeleteRelationsIn(ToolInput):
    relations: list[OldRelation] = Field(min_length=1, max_length=1000, description="Relations to delete.")


class DeleteRelationsOut(ToolOutput):
    deleted: int = Field(description="Relations removed.")
    not_found: list[RelationOut] = Field(description="Relations that did not exist.")


async def delete_relations(ctx: ToolContext, args: DeleteRelationsIn) -> DeleteRelationsOut:
    store = entity_store(ctx)
    for i, rel in enumerate(args.relations):
        store.require(check_name(rel.from_, f"relations[{i}].from"), "write")
    links = []
    for rel in args.relations:
        target = store.load(rel.to.strip(), "read")
        links.append(target.vp.rel.removesuffix(".md").lower() if target is not None else rel.to.strip().lower())
    removed: dict[int, int] = {}

    def change(e: Entity, members: list[int]) -> bool:
        for i in members:
            rel = args.relations[i]
            keep = [
                r
                for r in e.relations
                if not (r.relation_type == rel.relationType and r.target.lower() in (links[i], rel.to.strip().lower()))
            ]
            removed[i] = len(e.relations) - len(keep)
            e.relations = keep
        return any(removed[i] for i in members)

    groups = _by_note(store, [rel.from_.strip() for rel in args.relations])
    actions = [store.updating(args.relations[m[0]].from_.strip(), partial(change, members=m)) for m in groups]
    await all_or_nothing(ctx, actions, f"delete_relations on {len(actions)} entities")
    return DeleteRelationsOut(
        deleted=sum(removed.values()),
        not_found=[
            RelationOut(**{"from": rel.from_.strip(), "to": rel.to.strip(), "relationType": rel.relationType})
            for i, rel in enumerate(args.relations)
            if not removed.get(i)
        ],
    )


_W = {"scopes": ("write:vault",), "scope_class": "write", "mutating": True, "idempotent": False, "reads_index": False}

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
        tags=("memory",),
        **_W,  # type: ignore[arg-type]
    ),
    ToolSpec(
        name="delete_observations",
        domain="memory",
        title="Delete observations",
        description="Remove observations of memory entities, named by their text or block id.",
        input_model=DeleteObservationsIn,
        output_model=DeleteObservationsOut,
        handler=delete_observations,
        tags=("memory",),
        **_W,  # type: ignore[arg-type]
    ),
    ToolSpec(
        name="delete_relations",
        domain="memory",
        title="Delete relations",
        description="Remove relations between memory entities (`from`, `to`, `relationType`).",
        input_model=DeleteRelationsIn,
        output_model=DeleteRelationsOut,
        handler=delete_relations,
        tags=("memory",),
        **_W,  # type: ignore[arg-type]
    ),
    ToolSpec(
        name="delete_entities",
        domain="memory",
        title="Delete memory entities",
        description="Move memory entities' notes to the vault's .trash/ (a human confirms the list); relations "
        "of other entities that pointed at them are reported.",
        input_model=DeleteEntitiesIn,
        output_model=DeleteEntitiesOut,
        handler=delete_entities,
        scopes=("delete:vault",),
        scope_class="delete",
        mutating=True,
        confirm="conditional",
        confirm_when=delete_entities_preview,
        idempotent=False,
        reads_index=False,
        tags=("memory",),
    ),
)
