"""memory domain, pruning the graph: delete_entities, delete_observations, delete_relations,
supersede_observation.

Each call changes every entity note it names all or nothing (`entities.all_or_nothing`), one
write per note. `delete_entities` moves entity notes to the vault's trash as `delete_note` does,
after a human's confirmation that lists every note, and reports the relations of other entities
that pointed at them; Obsidian's workspace files forget the notes as they do for `delete_note`
(`service.graph.workspace_paths.forget_deleted`: recent files). Touches: the memory folder's
notes, and `.obsidian/workspace*.json` when they list a deleted note.
"""

from __future__ import annotations

from functools import partial

from pydantic import BaseModel, ConfigDict, Field

from service.errors import Conflict, NoteNotFound, ValidationFailed
from service.graph.workspace_paths import forget_deleted
from service.memory.lookup import listed_once
from service.memory.model import Entity, Observation, normalize_text
from service.memory.store import EntityStore, Loaded
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.tools.memory.entities import RelationOut
from service.tools.memory.names import Looked, entity_name, target_key
from service.tools.memory.prechecks import entities_there, none_missing
from service.tools.memory.writing import WRITE, all_or_nothing, entity_store, valid_until
from service.tools.models import ToolInput, ToolOutput
from service.tools.spec import ToolSpec
from service.vault.commit import Action, Undo


class DeleteEntitiesIn(ToolInput):
    entityNames: list[str] = Field(min_length=1, max_length=100, description="Entities to delete.")  # noqa: N815
    missing_ok: bool = Field(
        default=True,
        description="false: a name that is no entity is note_not_found and nothing is deleted (a plan's step fails).",
    )


class DeleteEntitiesOut(ToolOutput):
    deleted: list[str] = Field(description="Entities whose notes went to the trash.")
    trash: list[str] = Field(description="Where each note went, in order.")
    missing: list[str] = Field(description="Names that are no entity.")
    dangling_relations: list[RelationOut] = Field(description="Relations of other entities that pointed at them.")
    settings_updated: list[str] = Field(
        default_factory=list,
        description="Obsidian's workspace files whose recent files no longer list the notes (as Obsidian does).",
    )


async def delete_entities_preview(ctx: ToolContext, args: DeleteEntitiesIn) -> ChangePreview | None:
    store = entity_store(ctx)
    paths = []
    for i, raw in enumerate(args.entityNames):
        found = store.load(entity_name(ctx, store, raw, f"entityNames[{i}]"), "delete")
        if found is not None:
            paths.append(found.vp.rel)
        elif not args.missing_ok:
            return None  # the call refuses it: nothing to confirm
    if not paths:
        return None
    return ChangePreview.of(f"move {len(paths)} memory entity note(s) to the trash", paths)


@listed_once
async def delete_entities(ctx: ToolContext, args: DeleteEntitiesIn) -> DeleteEntitiesOut:
    store = entity_store(ctx)
    found = []
    missing = []
    for i, raw in enumerate(args.entityNames):
        name = entity_name(ctx, store, raw, f"entityNames[{i}]")
        loaded = store.load(name, "delete")
        (found.append(loaded) if loaded is not None else missing.append(name))
    if not args.missing_ok:
        none_missing(store, missing)
    stems = {f.vp.rel.removesuffix(".md").lower(): f.entity.name for f in found}
    dangling = [
        RelationOut(**{"from": e.entity.name, "to": stems[key], "relationType": r.relation_type})
        for e in store.entities()
        if e.vp.rel.removesuffix(".md").lower() not in stems
        for r in e.entity.relations
        if (key := target_key(r.target, store.folder)) in stems
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
    forgotten = await forget_deleted(ctx.vault, [f.vp.rel for f in found]) if found else []  # as delete_note
    return DeleteEntitiesOut(
        deleted=[f.entity.name for f in found],
        trash=trash,
        missing=missing,
        dangling_relations=dangling,
        settings_updated=forgotten,
    )


class Deletion(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entityName: str = Field(max_length=10_000, description="The entity.")  # noqa: N815
    observations: list[str] = Field(min_length=1, max_length=1000, description="Observations: their text or block id.")


class DeleteObservationsIn(ToolInput):
    deletions: list[Deletion] = Field(min_length=1, max_length=100, description="Per entity.")


class MendedOut(BaseModel):
    entityName: str = Field(description="The entity.")  # noqa: N815
    block_id: str = Field(description="The observation whose `superseded_by` named a deleted one.")
    text: str = Field(description="Its text.")
    superseded_by: str | None = Field(
        description="What it is superseded by now: the deleted one's own successor; null: current again."
    )


class DeleteObservationsOut(ToolOutput):
    deleted: int = Field(description="Observations removed.")
    not_found: list[str] = Field(description="Texts or block ids that matched no observation.")
    history_mended: list[MendedOut] = Field(
        default_factory=list,
        description="Observations superseded by a deleted one, changed in the same write: now superseded by "
        "what the deleted one was superseded by, or current again (superseded_by and valid_until cleared).",
    )


@listed_once
async def delete_observations(ctx: ToolContext, args: DeleteObservationsIn) -> DeleteObservationsOut:
    store = entity_store(ctx)
    plans = []
    for i, d in enumerate(args.deletions):
        name = entity_name(ctx, store, d.entityName, f"deletions[{i}].entityName")
        store.must_exist(name, "write")
        plans.append((name, d.observations))
    result: dict[int, tuple[int, list[str]]] = {}  # deletion -> (removed, texts that matched nothing)
    mended: dict[str, list[MendedOut]] = {}  # by note: rewritten when its change is applied again

    def change(e: Entity, members: list[int]) -> bool:
        before = list(e.observations)
        for i in members:
            result[i] = drop_observations(e, plans[i][1])
        mended[plans[members[0]][0]] = [
            MendedOut(
                entityName=e.name,
                block_id=o.block_id,
                text=o.text,
                superseded_by=o.fields.get("superseded_by", "").lstrip("^") or None,
            )
            for o in mend_history(e, before)
        ]
        return any(result[i][0] for i in members)

    groups = _by_note(store, [name for name, _ in plans])
    actions = [store.updating(plans[m[0]][0], partial(change, members=m), undoable=len(groups) > 1) for m in groups]
    await all_or_nothing(ctx, actions, f"delete_observations on {len(actions)} entities")
    return DeleteObservationsOut(
        deleted=sum(n for n, _ in result.values()),
        not_found=[w for i in sorted(result) for w in result[i][1]],
        history_mended=[m for group in mended.values() for m in group],
    )


def drop_observations(e: Entity, wanted: list[str]) -> tuple[int, list[str]]:
    """Remove the observations of `e` whose text (normalised) or block id is one of `wanted`: how
    many went, and the ones of `wanted` that matched none (delete_observations' change of one
    deletion; `service.tools.memory.planned` foresees it in a plan)."""
    keys = {normalize_text(w) for w in wanted} | {w.lstrip("^") for w in wanted}
    hit = {normalize_text(o.text) for o in e.observations} | {o.block_id for o in e.observations}
    keep = [o for o in e.observations if normalize_text(o.text) not in keys and o.block_id not in keys]
    miss = [w for w in wanted if normalize_text(w) not in hit and w.lstrip("^") not in hit]
    removed = len(e.observations) - len(keep)
    e.observations = keep
    return removed, miss


def mend_history(e: Entity, before: list[Observation]) -> list[Observation]:
    """The observations of `e` whose `superseded_by` named one of `before` that is gone now, each
    changed: superseded by the first one still there along the gone one's own `superseded_by`
    chain (Oslo -> Bergen -> Tromso, Bergen deleted: Oslo -> Tromso, its `valid_until` kept), else
    current again (`superseded_by` and the `valid_until` written with it cleared): the newer fact
    was retracted, so the older one is what the entity holds. Without this the older fact pointed
    at nothing and stayed history, and no current fact was left."""
    kept = {id(o) for o in e.observations}
    by_id = {o.block_id: o for o in before if o.block_id}
    gone = {block for block, o in by_id.items() if id(o) not in kept}
    out = []
    for o in e.observations:
        ref = o.fields.get("superseded_by", "").strip().lstrip("^")
        if ref not in gone:
            continue
        seen: set[str] = set()
        while ref in gone and ref not in seen:  # along the deleted ones to the first one kept
            seen.add(ref)
            ref = by_id[ref].fields.get("superseded_by", "").strip().lstrip("^")
        o.raw = None  # written in the memory form from now on (its text kept), as supersede_observation does
        if ref in by_id and ref not in gone and by_id[ref] is not o:
            o.fields["superseded_by"] = f"^{ref}"
        else:
            o.fields.pop("superseded_by", None)
            o.fields.pop("valid_until", None)
        o.render()
        out.append(o)
    return out


def _by_note(store: EntityStore, names: list[str]) -> list[list[int]]:
    """The positions of `names`, grouped by entity note (one write per note), in first-seen order."""
    groups: dict[str, list[int]] = {}
    notes = {name: store.path_of(name, "write").rel for name in dict.fromkeys(names)}  # each entity's once
    for i, name in enumerate(names):
        groups.setdefault(notes[name], []).append(i)
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
    links = []
    with Looked(ctx, store) as looked:  # one entity named in many relations is looked up once
        sources = [looked.name(rel.from_, f"relations[{i}].from") for i, rel in enumerate(args.relations)]
        for i, (source, rel) in enumerate(zip(sources, args.relations, strict=True)):
            looked.must_exist(source, "write")
            link = await looked.link_or_none(rel.to, f"relations[{i}].to")  # None: gone since, its text compared
            links.append((link or rel.to.strip()).lower())
    removed: dict[int, int] = {}

    def change(e: Entity, members: list[int]) -> bool:
        for i in members:
            removed[i] = drop_relations(e, args.relations[i], links[i], store.folder)
        return any(removed[i] for i in members)

    groups = _by_note(store, sources)
    actions = [store.updating(sources[m[0]], partial(change, members=m), undoable=len(groups) > 1) for m in groups]
    await all_or_nothing(ctx, actions, f"delete_relations on {len(actions)} entities")
    return DeleteRelationsOut(
        deleted=sum(removed.values()),
        not_found=[
            RelationOut(**{"from": rel.from_.strip(), "to": rel.to.strip(), "relationType": rel.relationType})
            for i, rel in enumerate(args.relations)
            if not removed.get(i)
        ],
    )


def drop_relations(e: Entity, rel: OldRelation, link: str, folder: str) -> int:
    """Remove the relations of `e` of `rel`'s type to its target, as linked (`link`: the link text
    `relation_link` found for it, else the target as written) or as written: how many went."""
    meant, kind = {target_key(link, folder), target_key(rel.to, folder)}, rel.relationType.strip()  # as created
    keep = [r for r in e.relations if not (r.relation_type == kind and target_key(r.target, folder) in meant)]
    removed = len(e.relations) - len(keep)
    e.relations = keep
    return removed


class SupersedeIn(ToolInput):
    entityName: str = Field(max_length=10_000, description="The entity.")  # noqa: N815
    observation: str = Field(
        min_length=1, max_length=10_000, description="The older observation: its text or ^block id."
    )
    superseded_by: str = Field(
        min_length=1, max_length=10_000, description="The observation that replaces it: its text or ^block id."
    )
    valid_until: str | None = Field(default=None, max_length=40, description="Until when the older one held.")


class SupersedeOut(ToolOutput):
    path: str = Field(description="The entity's note.")
    block_id: str = Field(description="The older observation's block id (it gets one if it had none).")
    superseded_by: str = Field(description="The newer observation's block id.")


def _find(e: Entity, ref: str) -> Observation | None:
    key = ref.strip().lstrip("^")
    return next((o for o in e.observations if o.block_id == key or normalize_text(o.text) == normalize_text(ref)), None)


def _supersedes(e: Entity, newer: Observation, older: Observation) -> bool:
    """Whether `newer` is already superseded, through its `superseded_by` chain, by `older`."""
    by_id = {o.block_id: o for o in e.observations if o.block_id}
    seen: set[int] = set()
    at: Observation | None = newer
    while at is not None and id(at) not in seen:
        seen.add(id(at))
        ref = at.fields.get("superseded_by", "").strip().lstrip("^")
        at = by_id.get(ref) if ref else None
        if at is older:
            return True
    return False


def _both_there(e: Entity, name: str, args: SupersedeIn) -> None:
    for field, ref in (("observation", args.observation), ("superseded_by", args.superseded_by)):
        if _find(e, ref) is None:
            raise NoteNotFound(
                f"{name!r} has no observation {ref[:80]!r}",
                details={"field": field, "entity": name},
                hint="open_nodes lists the entity's observations and their block ids: give one's text or "
                "^block id (add_observations records a newer fact first).",
            )


async def supersede_observation(ctx: ToolContext, args: SupersedeIn) -> SupersedeOut:
    """Mark an observation as superseded by a newer one (the consolidation plane's contradictions):
    `[valid_until:: …] [superseded_by:: ^id]` on the older one; both stay in the note."""
    store = entity_store(ctx)
    name = entity_name(ctx, store, args.entityName, "entityName")
    _both_there(store.require(name, "write").entity, name, args)
    out: dict[str, str] = {}

    def change(e: Entity) -> bool:
        out.update(zip(("block", "by"), superseded_in(e, name, args), strict=True))
        return True

    done = await store.update(name, change)
    return SupersedeOut(path=done.vp.rel, block_id=out["block"], superseded_by=out["by"])


def _not_superseded_elsewhere(e: Entity, name: str, old: Observation, new: Observation) -> None:
    """Refuse to point `old` at `new` when it is already superseded by another observation still in
    the note: the history it has would be lost (two agents superseding one fact at once by two
    facts: the second finds the first's). The same pointer again, or one naming no block there, is
    no refusal."""
    ref = old.fields.get("superseded_by", "").strip().lstrip("^").casefold()
    if not ref or ref == (new.block_id or "").casefold():
        return
    that = next((o for o in e.observations if o.block_id and o.block_id.casefold() == ref), None)
    if that is not None:
        raise Conflict(
            f"{name!r}'s observation {old.text[:80]!r} is already superseded by ^{that.block_id} ({that.text[:80]!r})",
            details={
                "field": "observation",
                "reason": "already_superseded",
                "entity": name,
                "block_id": old.block_id,
                "superseded_by": that.block_id,
            },
            hint=f"Supersede the newer fact (^{that.block_id}) instead to extend the history, or delete_observations "
            "it first; open_nodes shows each observation's superseded_by.",
        )


def superseded_in(e: Entity, name: str, args: SupersedeIn) -> tuple[str, str]:
    """supersede_observation's change of `e` (the entity `name`), as its note is now (another call
    may have deleted one of the two since): the older observation's block id and the newer's."""
    until = valid_until(args.valid_until)  # the call's, a plan's and a dry-run preview's check
    _both_there(e, name, args)
    old, new = _find(e, args.observation), _find(e, args.superseded_by)
    if old is None or new is None or old is new:
        raise ValidationFailed("the two observations must be two different ones", details={"field": "superseded_by"})
    _not_superseded_elsewhere(e, name, old, new)
    if _supersedes(e, new, old):
        raise ValidationFailed(
            "the superseding observation is itself superseded by this one: no current fact would be left",
            details={"field": "superseded_by", "reason": "cycle", "block_id": new.block_id},
        )
    if not new.block_id:  # a hand-written line: it gets a block id to point at, in the memory form (its text kept)
        new.raw = None
    new.render()  # gives it its block id when it has none
    old.raw = None  # written in the memory form from now on (its text kept)
    old.fields["superseded_by"] = f"^{new.block_id}"
    if until:
        old.fields["valid_until"] = until
    old.render()
    return old.block_id, new.block_id


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="delete_observations",
        domain="memory",
        title="Delete observations",
        description="Remove observations of memory entities, named by their text or block id. An observation "
        "a removed one superseded is superseded by that one's successor, or is current again (history_mended).",
        input_model=DeleteObservationsIn,
        output_model=DeleteObservationsOut,
        handler=delete_observations,
        static_check=entities_there("delete_observations"),  # a dry-run vault's preview refuses a missing entity too
        tags=("memory",),
        **WRITE,  # type: ignore[arg-type]
    ),
    ToolSpec(
        name="delete_relations",
        domain="memory",
        title="Delete relations",
        description="Remove relations between memory entities (`from`, `to`, `relationType`).",
        input_model=DeleteRelationsIn,
        output_model=DeleteRelationsOut,
        handler=delete_relations,
        static_check=entities_there("delete_relations"),  # a dry-run vault's preview refuses a missing entity too
        tags=("memory",),
        **WRITE,  # type: ignore[arg-type]
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
        static_check=entities_there("delete_entities"),  # a dry-run vault's preview refuses a missing entity too
        scopes=("delete:vault",),
        scope_class="delete",
        mutating=True,
        confirm="conditional",
        confirm_when=delete_entities_preview,
        idempotent=False,
        reads_index=False,
        tags=("memory",),
    ),
    ToolSpec(
        name="supersede_observation",
        domain="memory",
        title="Supersede an observation",
        description="Mark an observation of a memory entity as superseded by a newer one (valid_until, superseded_by "
        "fields); both stay in the note, the history is kept. An observation already superseded by another is "
        "refused (conflict): supersede that one.",
        input_model=SupersedeIn,
        output_model=SupersedeOut,
        handler=supersede_observation,
        tags=("memory",),
        **WRITE,  # type: ignore[arg-type]
    ),
)
