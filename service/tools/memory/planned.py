"""memory domain, an entity note's text as a plan's earlier steps leave it (for the plan's check:
`service.tools.sessions.plan_texts`): what create_entities, add_observations and create_relations
write there,
made by the tools' own functions on the note's text — the entity `parse` reads, the names the
tools take (`names.entity_name`, `EntityStore.path_of`), the checks and tags of an observation's
text, its provenance (`writing.provenance`), `entities.add_to`, and `render` with the note's
`updated` set as the store's write sets it; a relation added as `names.relate` adds it, to the link
the check found for its target as `names.relation_link` finds it (`service.plans.texts.LINKS`). A
later move then counts the links those notes hold (an observation, its `source` or a relation
linking the moved note) as the run rewrites them. Only block ids
and times differ from what the run writes (new ones at each write); a link never holds them.
Touches: nothing (reads the memory folder's names as the tools do).
"""

from __future__ import annotations

from service.memory.model import Entity, Observation, Relation, one_line, parse, render
from service.memory.store import now_iso
from service.tools.context import ToolContext
from service.tools.memory.entities import AddObservationsIn, CreateEntitiesIn, CreateRelationsIn, add_to
from service.tools.memory.names import entity_name, relate
from service.tools.memory.writing import (
    entity_store,
    observation_category,
    observation_tags,
    observation_text,
    provenance,
    with_tags,
)


def _names(note: str, rel: str) -> bool:
    """Whether the entity note at `note` is the note at `rel`: there, or moved on by a later step
    of the plan (a move keeps the file name; the text at `rel` is composed from the calls made to
    the note wherever it was, and one call names each entity note of the memory folder once)."""
    return note == rel or note.rsplit("/", 1)[-1] == rel.rsplit("/", 1)[-1]


def created_text(ctx: ToolContext, args: CreateEntitiesIn, text: str | None, rel: str) -> str | None:
    """The note at `rel` once create_entities ran (`text`: the note there before, None: none):
    a new entity's note as `EntityStore.create` writes it, an existing one unchanged (reported,
    not written); None when the call names no entity of that note."""
    store = entity_store(ctx)
    for i, item in enumerate(args.entities):
        name = entity_name(ctx, store, item.name, f"entities[{i}].name")
        if not _names(store.path_of(name, "write", any_case=False).rel, rel):
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
        if not _names(store.path_of(name, "write").rel, rel):
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


def related_text(ctx: ToolContext, args: CreateRelationsIn, links: dict[str, str], text: str, rel: str) -> str | None:
    """The entity note at `rel` (its `text`) once create_relations added the relations from its
    entity, each to the link `links` holds for its target as written (None: a target's link only
    the run finds)."""
    store = entity_store(ctx)
    entity = parse(text, rel.rsplit("/", 1)[-1].removesuffix(".md"))
    changed = False
    for i, item in enumerate(args.relations):
        source = entity_name(ctx, store, item.from_, f"relations[{i}].from")
        if not _names(store.path_of(source, "write").rel, rel):
            continue
        link = links.get(item.to.strip())
        if link is None:
            return None
        changed = relate(entity, Relation(item.relationType, link), store.folder) or changed
    if not changed:
        return text
    entity.updated = now_iso()
    return render(entity, text)
