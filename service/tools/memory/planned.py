"""memory domain, an entity note's text as a plan's earlier steps leave it (for the plan's check:
`service.tools.sessions.plan_texts`): what create_entities and add_observations write there,
made by the tools' own functions on the note's text — the entity `parse` reads, the names the
tools take (`names.entity_name`, `EntityStore.path_of`), the checks and tags of an observation's
text, its provenance (`writing.provenance`), `entities.add_to`, and `render` with the note's
`updated` set as the store's write sets it. A later move then counts the links those notes hold
(an observation or its `source` linking the moved note) as the run rewrites them. Only block ids
and times differ from what the run writes (new ones at each write); a link never holds them.
Touches: nothing (reads the memory folder's names as the tools do).
"""

from __future__ import annotations

from service.memory.model import Entity, Observation, one_line, parse, render
from service.memory.store import now_iso
from service.tools.context import ToolContext
from service.tools.memory.entities import AddObservationsIn, CreateEntitiesIn, add_to
from service.tools.memory.names import entity_name
from service.tools.memory.writing import (
    entity_store,
    observation_category,
    observation_tags,
    observation_text,
    provenance,
    with_tags,
)


def created_text(ctx: ToolContext, args: CreateEntitiesIn, text: str | None, rel: str) -> str | None:
    """The note at `rel` once create_entities ran (`text`: the note there before, None: none):
    a new entity's note as `EntityStore.create` writes it, an existing one unchanged (reported,
    not written); None when the call names no entity of that note."""
    store = entity_store(ctx)
    for i, item in enumerate(args.entities):
        name = entity_name(ctx, store, item.name, f"entities[{i}].name")
        if store.path_of(name, "write", any_case=False).rel != rel:
            continue
        if text is not None:
            return text
        texts = [observation_text(t, f"entities[{i}].observations") for t in item.observations]
        fields = provenance(ctx)
        observations = [Observation(t, None, "", dict(fields)) for t in dict.fromkeys(texts)]
        entity = Entity(name, one_line(item.entityType), observations=observations)
        entity.created = entity.updated = now_iso()
        return render(entity)
    return None


def observed_text(ctx: ToolContext, args: AddObservationsIn, text: str, rel: str) -> str:
    """The entity note at `rel` (its `text`) once add_observations added the observations of the
    batches naming its entity, as the tool's change of it does (`add_to`; unchanged: none new)."""
    store = entity_store(ctx)
    entity = parse(text, rel.rsplit("/", 1)[-1].removesuffix(".md"))
    changed = False
    for i, batch in enumerate(args.observations):
        name = entity_name(ctx, store, batch.entityName, f"observations[{i}].entityName")
        if store.path_of(name, "write").rel != rel:
            continue
        tags = observation_tags(batch.tags, f"observations[{i}].tags")
        texts = [with_tags(observation_text(t, f"observations[{i}].contents"), tags) for t in batch.contents]
        observation_category(batch.category, f"observations[{i}].category")
        fields = provenance(ctx, batch.source, batch.date, f"observations[{i}].")
        changed = bool(add_to(entity, texts, batch.category, fields)[0]) or changed
    if not changed:
        return text
    entity.updated = now_iso()
    return render(entity, text)
