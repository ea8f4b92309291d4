"""memory domain, the knowledge graph: create_entities, add_observations, create_relations, open_nodes.

The argument shapes are the official MCP memory server's (`entities: [{name, entityType,
observations}]`, `observations: [{entityName, contents}]`, `relations: [{from, to,
relationType}]`, `names`), so agents written for it work unchanged. Each entity is a note in the
memory folder (`service.memory.model`), changed through `service.memory.store` (per-note lock and
compare-and-swap on the note's etag). A call that changes several entity notes is all or nothing,
also across a kill -9 (`writing.all_or_nothing`). Every path goes through the caller's path ACL.
Touches: the memory folder's notes only.
"""

from __future__ import annotations

import asyncio
from functools import partial

from pydantic import BaseModel, ConfigDict, Field

from service.errors import AclDenied
from service.memory.history import History
from service.memory.lookup import listed_once
from service.memory.model import Entity, Observation, Relation, new_block_id, tags_of
from service.memory.store import Loaded
from service.tools.context import ToolContext
from service.tools.memory.adding import SimilarOut, add_to
from service.tools.memory.names import Looked, entity_name, relate, target_key, target_name, target_names
from service.tools.memory.prechecks import (
    entities_there,
    new_entities,
    not_to_itself,
    observations_counted,
    observed,
)
from service.tools.memory.report import fitted, left_out
from service.tools.memory.writing import (
    MAX_ITEMS,
    WRITE,
    all_or_nothing,
    entity_store,
    observation_category,
    observation_tags,
    observation_texts,
    provenance,
    relation_type,
)
from service.tools.models import ToolInput, ToolOutput
from service.tools.sensitive import guard_of
from service.tools.spec import ToolSpec
from service.vault.offloop import sized


class ObservationOut(ToolOutput):
    text: str = Field(description="The observation's text.")
    category: str | None = Field(default=None, description="Its category, if any.")
    block_id: str = Field(description="Obsidian block id (link it as [[Entity#^id]]); empty for a hand-written line.")
    recorded: str | None = Field(default=None, description="When it was recorded.")
    by: str | None = Field(default=None, description="Who recorded it: a hash of the caller's identity (8 hex digits).")
    date: str | None = Field(default=None, description="The date the fact is about, if given.")
    source: str | None = Field(default=None, description="Where it came from, if given.")
    tags: list[str] = Field(default_factory=list, description="The #tags its text holds, without '#'.")
    valid_until: str | None = Field(default=None, description="Superseded: until when it held, if given.")
    superseded_by: str | None = Field(
        default=None, description="Superseded: the block id of the observation that replaces it (null: current)."
    )
    sensitive: bool = Field(
        default=False, description="It holds a secret or names a health/money topic: ask before passing it on."
    )


class EntityOut(ToolOutput):
    name: str = Field(description="Entity name.")
    entityType: str = Field(description="Entity type.")  # noqa: N815 - the official server's field name
    path: str = Field(description="Vault path of its note.")
    observations: list[ObservationOut] = Field(description="Its observations, in note order.")
    obsidian_url: str = Field(description="obsidian:// URL of its note.")


class RelationOut(ToolOutput):
    from_: str = Field(alias="from", description="Source entity.")
    to: str = Field(description="Target entity or note.")
    relationType: str = Field(description="Relation type (active voice).")  # noqa: N815

    model_config = ConfigDict(populate_by_name=True, extra="forbid")


def entity_out(ctx: ToolContext, loaded: Loaded, *, found: bool = False) -> EntityOut:
    """The entity as a tool answers it; `found`: not asked for by name (read_memory_graph pages
    through them), so secrets are shown as the search tools show them ([sensitive] mode)."""
    e = loaded.entity
    guard = guard_of(ctx)
    show = guard.excerpt if found else str
    history = History(e.observations)
    return EntityOut(
        name=e.name,
        entityType=e.entity_type,
        path=loaded.vp.rel,
        observations=[
            ObservationOut(
                text=show(o.text),
                category=o.category,
                block_id=o.block_id,
                recorded=o.fields.get("recorded"),
                by=o.fields.get("by"),
                date=o.fields.get("date"),
                source=show(source) if (source := o.fields.get("source")) else None,
                tags=tags_of(o.text),
                valid_until=history.until(o),
                superseded_by=history.by(o),
                sensitive=guard.sensitive(o.text),
            )
            for o in e.observations
        ],
        obsidian_url=ctx.vault.url(loaded.vp.rel),
    )


# -- create_entities ---------------------------------------------------------------------------


class NewEntity(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=10_000, description="Entity name (any text on one line; kept in the frontmatter).")
    entityType: str = Field(max_length=100, description="Entity type, e.g. person, project.")  # noqa: N815
    observations: list[str] = Field(default_factory=list, max_length=MAX_ITEMS, description="Initial observations.")


class CreateEntitiesIn(ToolInput):
    entities: list[NewEntity] = Field(min_length=1, max_length=MAX_ITEMS, description="Entities to create.")


class CreateEntitiesOut(ToolOutput):
    created: list[EntityOut] = Field(description="Entities created.")
    existing: list[str] = Field(description="Names that exist already (reported, not duplicated).")
    truncated: bool = Field(
        default=False,
        description="Over the response limit: the echoed observations were left out; names and paths stay.",
    )


async def create_entities(ctx: ToolContext, args: CreateEntitiesIn) -> CreateEntitiesOut:
    store = entity_store(ctx)
    await store.names_read()  # each new name is looked up below: the notes read off the event loop
    # every name and text checked before the first write; a big call's off the loop (`observed`)
    planned = await sized(observed(args), new_entities, ctx, store, args.entities)
    existing = [e.name for e in planned if store.load(e.name, "write", any_case=False) is not None]
    made: list[Loaded] = []
    # a name another call makes meanwhile goes on `existing` too, as a name that was there
    actions = [store.creating(e, made, existing) for e in planned if e.name not in existing]
    await all_or_nothing(ctx, actions, f"create_entities of {len(actions)} entities")
    # the report scans each observation for secrets (~0.35 ms each): a big call's off the loop
    return await sized(sum(len(o.text) for e in planned for o in e.observations), reported, ctx, made, existing)


def reported(ctx: ToolContext, made: list[Loaded], existing: list[str]) -> CreateEntitiesOut:
    """create_entities' answer, within the response limit (`report.fitted`)."""
    out = CreateEntitiesOut(created=[entity_out(ctx, m) for m in made], existing=existing)
    out.truncated = fitted(out, out.created, ("observations",), ctx.services.settings.governor.max_response_bytes)
    return out


# -- add_observations --------------------------------------------------------------------------


class ObservationBatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entityName: str = Field(max_length=10_000, description="The entity to add to.")  # noqa: N815
    contents: list[str] = Field(min_length=1, max_length=MAX_ITEMS, description="Observations, one fact each.")
    category: str | None = Field(default=None, max_length=60, pattern=r"^[^\[\]:\n]+$", description="Category.")
    source: str | None = Field(default=None, max_length=300, description="Where the facts come from (a note, a turn).")
    date: str | None = Field(default=None, max_length=40, description="The date the facts are about.")
    tags: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="Tags for these observations, with or without '#' (written after each text as #tag).",
    )


class AddObservationsIn(ToolInput):
    observations: list[ObservationBatch] = Field(min_length=1, max_length=100, description="Per entity.")


class AddedOut(ToolOutput):
    entityName: str = Field(description="The entity.")  # noqa: N815
    addedObservations: list[str] = Field(description="Observations added.")  # noqa: N815
    block_ids: list[str] = Field(description="Block ids of the added observations, in order.")
    skipped_duplicates: list[str] = Field(description="Observations it already had (not added again).")
    similar_existing: list[SimilarOut] = Field(
        default_factory=list, description="Added observations that say nearly the same as one it had (both kept)."
    )
    added: int = Field(default=0, description="How many were added (complete when the lists were left out).")
    skipped: int = Field(default=0, description="How many it already had.")
    similar: int = Field(default=0, description="How many added say nearly the same as one it had.")


ECHOED = ("addedObservations", "skipped_duplicates", "similar_existing", "block_ids")  # left out first to last


class AddObservationsOut(ToolOutput):
    results: list[AddedOut] = Field(description="Per entity, in order.")
    truncated: bool = Field(
        default=False,
        description="Over the response limit: the echoed texts (then the block ids) "
        "were left out; entityName and the counts are complete.",
    )


@listed_once
async def add_observations(ctx: ToolContext, args: AddObservationsIn) -> AddObservationsOut:
    store = entity_store(ctx)
    batches = []
    observations_counted(args)
    for i, batch in enumerate(args.observations):  # all checked (entities exist) before any write
        name = entity_name(ctx, store, batch.entityName, f"observations[{i}].entityName")
        store.must_exist(name, "write")
        tags = observation_tags(batch.tags, f"observations[{i}].tags")
        texts = await observation_texts(batch.contents, tags, f"observations[{i}].contents")
        observation_category(batch.category, f"observations[{i}].category")
        fields = provenance(ctx, batch.source, batch.date, f"observations[{i}].")
        batches.append((name, texts, batch, fields))
    # block ids in the order the call lists the observations, whatever note each goes to: the
    # recall index takes observations recorded one after another as each other's context
    ids = [[new_block_id() for _ in texts] for _, texts, _, _ in batches]
    outcome: dict[int, tuple[list[Observation], list[str], list[SimilarOut]]] = {}
    groups: dict[str, list[int]] = {}  # one write per entity note, whatever the batches
    for i, (name, *_) in enumerate(batches):
        groups.setdefault(store.path_of(name, "write").rel, []).append(i)

    def change(entity: Entity, members: list[int]) -> bool:
        for i in members:
            _, texts, batch, fields = batches[i]
            outcome[i] = add_to(entity, texts, batch.category, fields, ids[i])
        return any(outcome[i][0] for i in members)

    def size(members: list[int]) -> int:  # the characters a write adds: past 64 KiB it runs off the loop
        return sum(len(text) for i in members for text in batches[i][1])

    actions = [
        store.updating(batches[m[0]][0], partial(change, members=m), undoable=len(groups) > 1, size=size(m))
        for m in groups.values()
    ]
    await all_or_nothing(ctx, actions, f"add_observations to {len(actions)} entities")
    results = [
        AddedOut(
            entityName=name,
            addedObservations=[o.text for o in outcome[i][0]],
            block_ids=[o.block_id for o in outcome[i][0]],
            skipped_duplicates=outcome[i][1],
            similar_existing=outcome[i][2],
            added=len(outcome[i][0]),
            skipped=len(outcome[i][1]),
            similar=len(outcome[i][2]),
        )
        for i, (name, *_) in enumerate(batches)
    ]
    out = AddObservationsOut(results=results)
    out.truncated = fitted(out, out.results, ECHOED, ctx.services.settings.governor.max_response_bytes)
    return out


# -- create_relations --------------------------------------------------------------------------


class NewRelation(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    from_: str = Field(alias="from", max_length=10_000, description="Source entity.")
    to: str = Field(max_length=10_000, description="Target: an entity, or any note of the vault.")
    relationType: str = Field(  # noqa: N815
        min_length=1, max_length=100, pattern=r"^[^\[\]\r\n]*[^\s\[\]]$", description="Relation type in active voice."
    )


class CreateRelationsIn(ToolInput):
    relations: list[NewRelation] = Field(min_length=1, max_length=MAX_ITEMS, description="Relations to create.")


class CreateRelationsOut(ToolOutput):
    created: list[RelationOut] = Field(description="Relations created.")
    skipped_duplicates: list[RelationOut] = Field(description="Relations that existed already.")


async def create_relations(ctx: ToolContext, args: CreateRelationsIn) -> CreateRelationsOut:
    store = entity_store(ctx)
    planned: list[tuple[str, Relation, RelationOut]] = []
    with Looked(ctx, store) as looked:  # one entity named in many relations is looked up once
        for i, rel in enumerate(args.relations):
            source = looked.name(rel.from_, f"relations[{i}].from")
            target = looked.name(rel.to, f"relations[{i}].to")
            not_to_itself(source, target, i)
            kind = relation_type(rel.relationType, f"relations[{i}].relationType")  # without the spaces before it
            looked.must_exist(source, "write")
            link = await looked.link(rel.to, f"relations[{i}].to")
            out = RelationOut(**{"from": source, "to": target, "relationType": kind})
            planned.append((source, Relation(kind, link), out))
    made: dict[int, bool] = {}  # planned relation -> created (False: it existed)
    groups: dict[str, list[int]] = {}
    notes = {source: store.path_of(source, "write").rel for source in dict.fromkeys(s for s, _, _ in planned)}
    for i, (source, _, _) in enumerate(planned):
        groups.setdefault(notes[source], []).append(i)

    def change(entity: Entity, members: list[int]) -> bool:
        for i in members:
            made[i] = relate(entity, planned[i][1], store.folder)  # not when it holds it (`[[Melanie]]` too)
        return any(made[i] for i in members)

    actions = [
        store.updating(planned[m[0]][0], partial(change, members=m), undoable=len(groups) > 1) for m in groups.values()
    ]
    await all_or_nothing(ctx, actions, f"create_relations on {len(actions)} entities")
    return CreateRelationsOut(
        created=[out for i, (_, _, out) in enumerate(planned) if made.get(i)],
        skipped_duplicates=[out for i, (_, _, out) in enumerate(planned) if not made.get(i, True)],
    )


# -- open_nodes --------------------------------------------------------------------------------


class OpenNodesIn(ToolInput):
    names: list[str] = Field(min_length=1, max_length=100, description="Entity names.")


class OpenNodesOut(ToolOutput):
    entities: list[EntityOut] = Field(description="The entities found, with their observations.")
    relations: list[RelationOut] = Field(description="Relations from or to them.")
    missing: list[str] = Field(description="Names that are no entity (or that you may not read).")
    truncated: bool = Field(
        default=False, description="Observations were left out to fit the response limit (observations_left_out)."
    )
    observations_left_out: list[str] = Field(
        default_factory=list,
        description="Entities listed without their observations, the biggest, so the answer fits the response "
        "limit (search_memory finds their observations).",
    )


async def open_nodes(ctx: ToolContext, args: OpenNodesIn) -> OpenNodesOut:
    return await asyncio.to_thread(_opened, ctx, args)  # it reads every entity note: off the event loop


def _opened(ctx: ToolContext, args: OpenNodesIn) -> OpenNodesOut:
    store = entity_store(ctx)
    found, missing = dict[str, Loaded](), dict[str, None]()  # each entity once, however many names reach it
    with Looked(ctx, store) as looked:  # the names no file name spells: the memory folder listed once
        for i, raw in enumerate(args.names):
            name = looked.name(raw, f"names[{i}]")
            try:  # a name whose own note the ACL closes is no entity for this caller, as an absent one
                loaded = store.load(name, "read")
            except AclDenied:
                loaded = None
            (found.setdefault(loaded.vp.rel, loaded) if loaded is not None else missing.setdefault(name))
    opened = {rel.removesuffix(".md").lower() for rel in found}
    everything = list(store.entities())
    names = target_names(everything)
    relations: list[RelationOut] = []
    for loaded in everything:
        stem = loaded.vp.rel.removesuffix(".md").lower()
        for r in loaded.entity.relations:
            if stem in opened or target_key(r.target, store.folder) in opened:
                to = target_name(r.target, names, store.folder)
                relations.append(RelationOut(**{"from": loaded.entity.name, "to": to, "relationType": r.relation_type}))
    out = OpenNodesOut(entities=[entity_out(ctx, f) for f in found.values()], relations=relations, missing=[*missing])
    out.observations_left_out = left_out(out, out.entities, ctx.services.settings.governor.max_response_bytes)
    out.truncated = bool(out.observations_left_out)
    return out


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="create_entities",
        domain="memory",
        title="Create memory entities",
        description="Create entities of the agent memory (one note each in the memory folder) with their "
        "initial observations; names that exist are reported, not duplicated. Shapes of the MCP memory server.",
        input_model=CreateEntitiesIn,
        output_model=CreateEntitiesOut,
        handler=create_entities,
        static_check=entities_there("create_entities"),  # a dry-run preview and a plan refuse its arguments too
        tags=("memory",),
        **WRITE,  # type: ignore[arg-type]
    ),
    ToolSpec(
        name="add_observations",
        domain="memory",
        title="Add observations",
        description="Add facts to memory entities (a list item with a block id and its provenance each); exact "
        "duplicates are skipped and reported. Optional category, tags (written as #tag), source and date per "
        "entity.",
        input_model=AddObservationsIn,
        output_model=AddObservationsOut,
        handler=add_observations,
        static_check=entities_there("add_observations"),  # a dry-run vault's preview refuses a missing entity too
        tags=("memory",),
        **WRITE,  # type: ignore[arg-type]
    ),
    ToolSpec(
        name="create_relations",
        domain="memory",
        title="Create relations",
        description="Relate memory entities (or an entity and any note) as `- relationType [[Target]]` wikilinks "
        "in the source entity's note; duplicates are skipped.",
        input_model=CreateRelationsIn,
        output_model=CreateRelationsOut,
        handler=create_relations,
        static_check=entities_there("create_relations"),  # a dry-run vault's preview refuses a missing entity too
        tags=("memory",),
        **WRITE,  # type: ignore[arg-type]
    ),
    ToolSpec(
        name="open_nodes",
        domain="memory",
        title="Open memory entities",
        description="The named memory entities with their observations, and the relations from or to them.",
        input_model=OpenNodesIn,
        output_model=OpenNodesOut,
        handler=open_nodes,
        reads_index=False,
        tags=("memory",),
    ),
)
