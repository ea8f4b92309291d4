"""memory domain, what a memory call refuses on the vault as it is now, for a dry-run vault's
preview (`service.dispatch.preview`), so the preview never says a call would succeed that the
call then refuses: each tool's own check, nothing written (the arguments alone and the entities a
call needs are its `static_check`'s: `prechecks`). create_entities: a case twin of an entity there
(`already_exists`); supersede_observation: an observation it names not there (`note_not_found`),
the two one observation or a cycle (`validation_error`), the tool's own `superseded_in`;
merge_observations: the merged entity not there, both names one entity, a block id the kept note
uses for another observation (`merging.carried`); process_capture: no such capture (`not_found`),
one processed already (`conflict`), its entity or note not there, a new note's path taken;
promote_experience: its confirmation's own precheck (no experience, promoted already, its entity
not there). A single call's preview has no earlier steps: the notes as they are on disk.
Touches: nothing (reads the entity notes, the capture queue, the experience store).
"""

from __future__ import annotations

import asyncio
from typing import Any

from service.errors import AclDenied
from service.tools.context import ToolContext
from service.tools.memory.names import entity_name
from service.tools.memory.writing import entity_store
from service.vault.casing import refuse_case_twin


async def refused_now(ctx: ToolContext, tool: str, args: Any) -> None:
    """Raise the error `tool` called with `args` (validated) answers on the vault as it is now,
    where a memory tool's own check finds one; the path ACL's refusal is left to the preview's
    checks of the paths (as `prechecks` leaves it)."""
    try:
        if tool == "create_entities":
            await asyncio.to_thread(_twins, ctx, args)
        elif tool == "supersede_observation":
            await asyncio.to_thread(_superseding, ctx, args)
        elif tool == "merge_observations":
            from service.tools.memory.merging import merge_refusal

            await asyncio.to_thread(merge_refusal, ctx, args)
        elif tool == "process_capture":
            from service.tools.memory.captures import capture_refusal

            await capture_refusal(ctx, args)
        elif tool == "promote_experience":
            from service.tools.memory.experiences import precheck_promote

            await precheck_promote(ctx, args, mend=False)
    except AclDenied:
        return


def _twins(ctx: ToolContext, args: Any) -> None:
    """create_entities' refusal of a new entity's note that would be a case twin of a file there
    (the write's own `refuse_case_twin`: 'ann' beside Memory/Ann.md)."""
    store = entity_store(ctx)
    for i, item in enumerate(args.entities):
        vp = store.path_of(entity_name(ctx, store, item.name, f"entities[{i}].name"), "write", any_case=False)
        if not store.files.has_note(vp):  # an entity there is reported, not made
            refuse_case_twin(ctx.vault.paths.root, vp.rel)


def _superseding(ctx: ToolContext, args: Any) -> None:
    from service.tools.memory.pruning import superseded_in

    store = entity_store(ctx)
    name = entity_name(ctx, store, args.entityName, "entityName")
    superseded_in(store.require(name, "write").entity, name, args)
