"""memory domain, an entity note's text as a plan's earlier steps leave it (for the plan's check:
`service.tools.sessions.plan_texts`): what create_entities, add_observations and create_relations
write there,
made by the tools' own functions on the note's text — the entity `parse` reads, the names the
tools take (`names.entity_name`, `EntityStore.path_of`), the checks and tags of an observation's
text, its provenance (`writing.provenance`), `adding.add_to`, and `render` with the note's
`updated` set as the store's write sets it; a relation added as `names.relate` adds it, to the link
the check found for its target as `names.relation_link` finds it (`service.plans.texts.LINKS`). A
later move then counts the links those notes hold (an observation, its `source` or a relation
linking the moved note) as the run rewrites them. Only block ids
and times differ from what the run writes (new ones at each write); a link never holds them.
Touches: nothing (reads the memory folder's names as the tools do).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from service.markdown import sections
from service.memory.captures import mark_item
from service.memory.model import Entity, Relation, new_block_id, parse, render
from service.memory.store import EntityStore, now_iso
from service.tools.context import ToolContext
from service.tools.memory.adding import add_to
from service.tools.memory.captures import ProcessCaptureIn
from service.tools.memory.entities import AddObservationsIn, CreateEntitiesIn, CreateRelationsIn, NewRelation
from service.tools.memory.graph import MemoryStoreIn
from service.tools.memory.merging import MergeObservationsIn, carried
from service.tools.memory.names import entity_name, relate
from service.tools.memory.prechecks import new_entities
from service.tools.memory.pruning import (
    DeleteObservationsIn,
    DeleteRelationsIn,
    OldRelation,
    SupersedeIn,
    drop_observations,
    drop_relations,
    mend_history,
    superseded_in,
)
from service.tools.memory.writing import (
    entity_store,
    observation_category,
    observation_tags,
    observation_text,
    provenance,
    with_tags,
)

R = TypeVar("R", NewRelation, OldRelation)


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
    for entity in new_entities(ctx, store, args.entities):  # a name given twice: one note, both items' observations
        if not _names(store.path_of(entity.name, "write", any_case=False).rel, rel):
            continue
        if text is not None:
            return text
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
    own = _from_here(ctx, store, args.relations, links, rel)
    if own is None:
        return None
    changed = False
    for item, link in own:
        changed = relate(entity, Relation(item.relationType.strip(), link), store.folder) or changed
    if not changed:
        return text
    entity.updated = now_iso()
    return render(entity, text)


def unobserved_text(ctx: ToolContext, args: DeleteObservationsIn, text: str, rel: str) -> str:
    """The entity note at `rel` once delete_observations removed the observations its deletions
    name there, the history they leave mended (`drop_observations`, `mend_history`)."""
    store = entity_store(ctx)
    entity = parse(text, rel.rsplit("/", 1)[-1].removesuffix(".md"))
    before = list(entity.observations)
    removed = 0
    for i, d in enumerate(args.deletions):
        name = entity_name(ctx, store, d.entityName, f"deletions[{i}].entityName")
        if _names(store.path_of(name, "write").rel, rel):
            removed += drop_observations(entity, d.observations)[0]
    if not removed:
        return text
    mend_history(entity, before)
    return _written(entity, text)


def unrelated_text(ctx: ToolContext, args: DeleteRelationsIn, links: dict[str, str], text: str, rel: str) -> str | None:
    """The entity note at `rel` once delete_relations removed the relations from its entity, each
    target to the link `links` holds for it as written (the target itself where the call finds
    none; None: a target's link only the run finds)."""
    store = entity_store(ctx)
    entity = parse(text, rel.rsplit("/", 1)[-1].removesuffix(".md"))
    own = _from_here(ctx, store, args.relations, links, rel)
    if own is None:
        return None
    removed = sum(drop_relations(entity, item, link.lower(), store.folder) for item, link in own)
    return _written(entity, text) if removed else text


def _from_here(
    ctx: ToolContext, store: EntityStore, relations: Sequence[R], links: dict[str, str], rel: str
) -> list[tuple[R, str]] | None:
    """The relations whose source entity's note is `rel`, each with the link `links` holds for its
    target as written; None when a target's link only the run finds."""
    own: list[tuple[R, str]] = []
    for i, item in enumerate(relations):
        source = entity_name(ctx, store, item.from_, f"relations[{i}].from")
        if not _names(store.path_of(source, "write").rel, rel):
            continue
        link = links.get(item.to.strip())
        if link is None:
            return None
        own.append((item, link))
    return own


def superseding_text(ctx: ToolContext, args: SupersedeIn, text: str, rel: str) -> str:
    """The entity note at `rel` once supersede_observation marked its older observation
    (`superseded_in`: the call's refusal where one of the two is not there)."""
    store = entity_store(ctx)
    name = entity_name(ctx, store, args.entityName, "entityName")
    if not _names(store.path_of(name, "write").rel, rel):
        return text
    entity = parse(text, rel.rsplit("/", 1)[-1].removesuffix(".md"))
    superseded_in(entity, name, args)
    return _written(entity, text)


def merged_text(ctx: ToolContext, args: MergeObservationsIn, merged: str, text: str, rel: str) -> str:
    """The kept entity's note at `rel` once merge_observations copied into it the observation
    lines of the merged entity's note, whose text is `merged` (as the plan's earlier steps leave
    it): `carried`, its refusal (`block_id_taken`) the call's."""
    store = entity_store(ctx)
    name = entity_name(ctx, store, args.entityName, "entityName")
    if not _names(store.path_of(name, "write").rel, rel):
        return text
    entity = parse(text, rel.rsplit("/", 1)[-1].removesuffix(".md"))
    added, _there = carried(entity, list(parse(merged).observations))
    if not added:
        return text
    entity.observations.extend(added)
    return _written(entity, text)


def stored_text(ctx: ToolContext, args: MemoryStoreIn, text: str | None, rel: str) -> str:
    """The note at `rel` once memory_store kept its fact: the entity's note with the value added as
    `add_to` adds it (where there is none, made with it as `EntityStore.create` makes it, of type
    `memory`) (unchanged: it holds the fact already). `rel` is the note the check found
    for the key (`memory_effects.made_alike`: an entity an earlier step made in another case too)."""
    store = entity_store(ctx)
    key = entity_name(ctx, store, args.key, "key")
    value = observation_text(args.value, "value")
    made = provenance(ctx, args.source)
    if text is None:  # made with its fact, in one write
        entity = Entity(key, "memory")
        add_to(entity, [value], None, made)
        entity.created = entity.updated = now_iso()
        return render(entity)
    entity = parse(text, rel.rsplit("/", 1)[-1].removesuffix(".md"))
    if not add_to(entity, [value], None, made)[0]:
        return text
    return _written(entity, text)


def filed_text(ctx: ToolContext, args: ProcessCaptureIn, capture: dict[str, str], text: str, rel: str) -> str:
    """The note at `rel` once process_capture filed the pending capture (`capture`: its text and
    its inbox, `service.plans.texts.CAPTURE`) as an observation of its target entity: the entity's
    note as `filing.file_observation` changes it, the inbox with the item marked filed, linking the
    observation (as the call marks it; the block id is the run's). Other notes: unchanged."""
    store = entity_store(ctx)
    name = entity_name(ctx, store, args.target or "", "entity")
    kept = store.path_of(name, "write").rel
    back = f"{capture['inbox'].removesuffix('.md')}#^{args.capture_id}"
    if rel == capture["inbox"]:
        fields = f"[status:: filed] [filed_to:: [[{kept.removesuffix('.md')}#^{new_block_id()}]]]"
        return sections.keeping_crlf(lambda old: mark_item(old, args.capture_id, fields)[0])(text)
    if not _names(kept, rel):
        return text
    entity = parse(text, rel.rsplit("/", 1)[-1].removesuffix(".md"))
    clean = observation_text(capture["text"], "text")
    made = provenance(ctx, back)
    if not add_to(entity, [clean], observation_category(args.category, "category"), made)[0]:
        return text
    return _written(entity, text)


def _written(entity: Entity, text: str) -> str:
    """`entity`'s note once changed, as the store writes it (`updated` set, over `text`)."""
    entity.updated = now_iso()
    return render(entity, text)
