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
from typing import Any

from service.errors import AclDenied, AmbiguousNote, NoteNotFound
from service.memory.store import EntityStore
from service.tools.context import ToolContext
from service.tools.memory.names import entity_name, relation_link
from service.tools.memory.writing import entity_store


def _needed(tool: str, args: Any) -> list[tuple[str, str, str]]:
    """(name as given, its field, the op the call needs it for) of each entity the call needs."""
    if tool == "add_observations":
        return [(b.entityName, f"observations[{i}].entityName", "write") for i, b in enumerate(args.observations)]
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
    """The `static_check` of `tool`: each entity it needs is there (else `note_not_found`)."""

    async def check(ctx: ToolContext, args: Any) -> None:
        store = entity_store(ctx)
        try:
            for raw, field, op in _needed(tool, args):
                store.must_exist(entity_name(ctx, store, raw, field), op)
            for i, relation in enumerate(args.relations if tool == "create_relations" else ()):
                store.must_exist(entity_name(ctx, store, relation.from_, f"relations[{i}].from"), "write")
                with contextlib.suppress(AmbiguousNote):  # which note: the call's own answer
                    await relation_link(ctx, store, relation.to, f"relations[{i}].to")  # neither entity nor note
            if tool == "delete_entities" and args.missing_ok is False:
                names = [entity_name(ctx, store, raw, f"entityNames[{i}]") for i, raw in enumerate(args.entityNames)]
                none_missing(store, [n for n in names if store.load(n, "delete") is None])
        except AclDenied:  # the path ACL's answer is the call's and the plan check's own (it tells no more)
            return

    return check
