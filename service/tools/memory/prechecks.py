"""memory domain, the refusals of a call that changes entities known before it runs (the tools'
`ToolSpec.static_check`): an entity it needs that is not there answers `note_not_found`, and a
relation's target that is neither an entity nor a note `validation_error` (`unknown_endpoint`), as
the call does, found as the call finds it (`names.entity_name`, `EntityStore.must_exist`: a note the
caller may not read is no entity's). The path ACL's refusal is left to the call and to the checks
of the paths (a validate_plan by a caller without the tool's scope runs this check too: a drop
box's refusal would tell a hidden note from a missing one). A dry-run vault's preview runs it,
so it never previews a change the call refuses (`service.dispatch.preview`); a plan's check takes
neither from it (an earlier step may make the entity or the note) and decides that over the plan's
steps itself (`service.plans.memory_effects`).
Touches: nothing (reads the memory folder's names).
"""

from __future__ import annotations

import contextlib
import unicodedata
from typing import Any

from service.errors import AclDenied, AmbiguousNote, NoteNotFound, ValidationFailed
from service.memory.model import Entity, Observation, one_line
from service.memory.store import EntityStore
from service.tools.context import ToolContext
from service.tools.memory.names import Looked, entity_name
from service.tools.memory.writing import (
    MAX_ITEMS,
    entity_store,
    no_controls,
    no_open_comment,
    observation_category,
    observation_tags,
    observation_text,
    provenance,
    relation_type,
    with_tags,
)
from service.vault.invisible import shows_nothing
from service.vault.offloop import sized


def arguments(ctx: ToolContext, tool: str, args: Any) -> None:
    """The refusals of a memory call's arguments alone (an observation's text, a name, a target a
    filing needs), as the call raises them: in a dry-run vault's preview and in a plan's check
    alike (no earlier step changes them). A capture's and an experience's text: `captures.
    capture_text`, `experiences.experience_text` (their tools' own `static_check`)."""
    store = entity_store(ctx)
    if tool == "memory_store":
        visible(store, entity_name(ctx, store, args.key, "key"), "key")
        observation_text(args.value, "value")
        provenance(ctx, args.source)
    elif tool == "create_entities":
        new_entities(ctx, store, args.entities)  # the call's own check of every item, so the two cannot drift
    elif tool == "process_capture":
        filing_args(args)


def filing_args(args: Any) -> None:
    """process_capture's refusals of its arguments alone: a filing with no target; a heading holding
    a control character or an unpaired `%%` (a `## heading` the note lacks is written at its end,
    where a `%%` would open a comment hiding the filed text and all appended after it)."""
    if args.action != "discard" and not (args.target or "").strip():
        raise no_target(args.action)
    if args.heading is not None and args.action in ("note", "new_note"):
        no_controls(args.heading, "heading")


def no_target(action: str) -> ValidationFailed:
    """process_capture's refusal of a filing that names no target."""
    return ValidationFailed(f"action {action!r} needs a target", details={"field": "target", "reason": "missing"})


def not_to_itself(source: str, target: str, i: int) -> None:
    """create_relations' refusal of a relation from an entity to itself (the `i`th relation)."""
    if source.lower() == target.lower():
        raise ValidationFailed(
            f"a relation from {source!r} to itself", details={"field": f"relations[{i}]", "reason": "self_relation"}
        )


def observations_counted(args: Any) -> None:
    """add_observations' first check: at most `MAX_ITEMS` observations in one call."""
    total = sum(len(b.contents) for b in args.observations)
    if total > MAX_ITEMS:
        raise ValidationFailed(
            f"{total} observations in one call; at most {MAX_ITEMS}",
            details={"field": "observations", "reason": "too_many", "count": total, "limit": MAX_ITEMS},
            hint="Split them over several calls.",
        )


def observations_checked(ctx: ToolContext, store: EntityStore, args: Any) -> None:
    """add_observations' checks before it writes, in its order: the count, then each batch's
    entity (there), tags, texts, category and provenance (`entities.add_observations`)."""
    observations_counted(args)
    for i, batch in enumerate(args.observations):
        store.must_exist(entity_name(ctx, store, batch.entityName, f"observations[{i}].entityName"), "write")
        tags = observation_tags(batch.tags, f"observations[{i}].tags")
        for text in batch.contents:
            with_tags(observation_text(text, f"observations[{i}].contents"), tags)
        observation_category(batch.category, f"observations[{i}].category")
        provenance(ctx, batch.source, batch.date, f"observations[{i}].")


def _needed(tool: str, args: Any) -> list[tuple[str, str, str]]:
    """(name as given, its field, the op the call needs it for) of each entity the call needs."""
    if tool == "delete_observations":
        return [(d.entityName, f"deletions[{i}].entityName", "write") for i, d in enumerate(args.deletions)]
    if tool == "delete_relations":
        return [(r.from_, f"relations[{i}].from", "write") for i, r in enumerate(args.relations)]
    return []


def none_missing(store: EntityStore, missing: list[str]) -> None:
    """delete_entities with missing_ok false: a name that is no entity refuses the whole call."""
    if missing:
        raise NoteNotFound(
            f"no memory entity {missing[0]!r}: nothing was deleted",
            details={"entity": missing[0], "missing": missing, "suggestions": store.suggestions(missing[0])},
            hint="read_memory_graph lists the entities; without missing_ok=false the others are deleted.",
        )


def entities_there(tool: str) -> Any:
    """The `static_check` of `tool`: its arguments as the call checks them (`arguments`), and each
    entity it needs is there (else `note_not_found`), in the call's order."""

    async def check(ctx: ToolContext, args: Any) -> None:
        store = entity_store(ctx)
        try:
            if tool == "create_entities":  # its names are looked up (`new_entities`): read off the event loop first
                await store.names_read()
                await sized(observed(args), arguments, ctx, tool, args)
                return
            if tool == "add_observations":  # each batch's entity, then its texts, as the call checks them
                observations_checked(ctx, store, args)
            arguments(ctx, tool, args)
            with Looked(ctx, store) as looked:  # as the call looks them up: each once
                for raw, field, op in _needed(tool, args):
                    looked.must_exist(looked.name(raw, field), op)
                for i, relation in enumerate(args.relations if tool == "create_relations" else ()):
                    source = looked.name(relation.from_, f"relations[{i}].from")
                    not_to_itself(source, looked.name(relation.to, f"relations[{i}].to"), i)
                    relation_type(relation.relationType, f"relations[{i}].relationType")
                    looked.must_exist(source, "write")
                    with contextlib.suppress(AmbiguousNote):  # which note: the call's own answer
                        await looked.link(relation.to, f"relations[{i}].to")  # neither entity nor note
            if tool == "delete_entities" and args.missing_ok is False:
                names = [entity_name(ctx, store, raw, f"entityNames[{i}]") for i, raw in enumerate(args.entityNames)]
                none_missing(store, [n for n in names if store.load(n, "delete") is None])
        except AclDenied:  # the path ACL's answer is the call's and the plan check's own (it tells no more)
            return

    return check


def observed(args: Any) -> int:
    """The characters of a create_entities call's observations: past `offloop.OFF_LOOP_CHARS`, its
    items are checked in a worker thread (`new_entities`: ~0.1 ms an observation, seconds for a
    call of 50,000), the event loop free for the other calls meanwhile."""
    return sum(len(text) for item in args.entities for text in item.observations)


def new_entities(ctx: ToolContext, store: EntityStore, items: list[Any]) -> list[Entity]:
    """The entities a create_entities call makes of its `items`, every name checked, each once: an item naming
    one an earlier item names adds its observations to it (each text once; a name given two types
    is `validation_error`, `repeated_name`). The call's own check, and its `static_check`'s
    (`arguments`: a dry-run vault's preview, a plan's check); a plan's check foresees the note
    from it too (`planned`). Safe in a worker thread (`observed`): it reads, and the name lookup
    takes its lock."""
    planned: dict[str, tuple[int, Entity]] = {}  # names as the store tells them apart: 'ann lee' is not 'Ann Lee'
    fields = provenance(ctx)
    for i, item in enumerate(items):
        name = entity_name(ctx, store, item.name, f"entities[{i}].name")
        no_open_comment(name, f"entities[{i}].name")  # its note's `# title`
        kind = entity_type(item.entityType, f"entities[{i}].entityType")
        texts = [observation_text(t, f"entities[{i}].observations") for t in item.observations]
        visible(store, name, f"entities[{i}].name")  # a case twin of an entity is refused, not taken for it
        # one name in NFC and NFD is one note (the vault names files in NFC): one entity, the first spelling
        first, entity = planned.setdefault(unicodedata.normalize("NFC", name), (i, Entity(name, kind)))
        one_type(items, first, i)
        known = {o.text for o in entity.observations}
        entity.observations += [Observation(t, None, "", dict(fields)) for t in dict.fromkeys(texts) if t not in known]
    return [entity for _, entity in planned.values()]


def visible(store: EntityStore, name: str, field: str) -> None:
    """A new entity whose name holds characters that show nothing or reorder the text (`shows_nothing`:
    a zero-width space, a soft hyphen, a BOM, a bidi override) is refused when, without them, it is
    the name of an entity the caller has (`looks_like`, naming it): `Ann\u200b` beside Ann would be
    listed, titled and linked as a second "Ann". Another such name is made (text copied from the web
    holds soft hyphens: its file name escapes them), and an entity so named already is found. Finds
    the name's note as a write does (a case twin: refused)."""
    vp = store.path_of(name, "write", any_case=False)
    if not shows_nothing(name) or store.files.has_note(vp):
        return
    shown = "".join(c for c in name if not shows_nothing(c)).strip()
    try:
        there = store.path_of(shown, "read") if shown and shown != name else None
    except AclDenied:  # a note the caller may not read is no entity of that name
        there = None
    if there is not None and store.files.has_note(there):
        raise ValidationFailed(
            f"{field} {name[:60]!r} shows as the entity {shown!r}: it holds characters that show nothing",
            details={"field": field, "reason": "looks_like", "entity": shown, "path": there.rel},
            hint="Use the entity's own name, or a name that differs in what it shows.",
        )


def entity_type(raw: str, field: str) -> str:
    """A new entity's type on one line; a blank one is `validation_error` (`empty`): an entity note
    whose `entityType` is "" is found by no type (read_memory_graph, search_memory) and tells a
    reader nothing (the official memory server takes any string; its callers send a type)."""
    kind = one_line(raw)
    if not kind:
        raise ValidationFailed(
            f"{field} is blank",
            details={"field": field, "reason": "empty"},
            hint="Give the entity a type, e.g. person, project, organization.",
        )
    return kind


def one_type(items: list[Any], first: int, i: int) -> None:
    """create_entities' refusal of `items[i]` giving the name `items[first]` gives another type."""
    kind, was = one_line(items[i].entityType), one_line(items[first].entityType)
    if kind != was:
        raise ValidationFailed(
            f"entities[{i}] names {items[i].name!r} as a {kind!r}, entities[{first}] as a {was!r}",
            details={"field": f"entities[{i}].entityType", "reason": "repeated_name", "first": first},
        )
