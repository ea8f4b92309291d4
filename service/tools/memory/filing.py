"""What captures and experiences need of the memory core: the memory folder's ACL, and adding one
observation to an entity with its provenance (`service.memory.store`).

Captures filed into an entity and promoted experiences become observations like any other, so
`search_memory`, `open_nodes` and the graph see them; their `source` says where they came from
(the inbox item's block link, or `experience exp-…`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from service.errors import AclDenied, VaultgateError
from service.tools.context import ToolContext
from service.types import Op


@dataclass(frozen=True, slots=True)
class Filed:
    entity: str  # the entity's name
    path: str  # its note
    block_id: str  # the new observation's block id


def check_memory_folder(ctx: ToolContext, op: Op) -> str:
    """The memory folder, when the caller may `op` in it (the folder and what is inside);
    else `acl_denied` naming the folder (for tools whose records live outside the vault)."""
    folder = ctx.services.settings.memory.folder.strip().strip("/")
    guard = ctx.services.guard
    for rel in (folder, f"{folder}/{'x' * 8}.md"):
        if not guard.allows(ctx.principal, ctx.vault, rel, op):
            raise AclDenied(
                f"{op} access to the memory folder {folder!r} is denied",
                details={"path": folder, "op": op, "vault": ctx.vault.id},
            )
    return folder


async def file_observation(ctx: ToolContext, entity: str, text: str, *, source: str, category: str | None) -> Filed:
    """Add `text` as one observation of `entity` (which must exist) with `source` as its
    provenance; the entity note's path and the observation's block id come back."""
    from service.memory.model import Entity
    from service.tools.memory.adding import add_to
    from service.tools.memory.names import entity_name
    from service.tools.memory.writing import entity_store, observation_category, observation_text, provenance

    store = entity_store(ctx)
    name = entity_name(ctx, store, entity, "entity")
    clean = observation_text(text, "text")
    fields = provenance(ctx, source)
    category = observation_category(category, "category")
    block: list[str] = []

    def change(e: Entity) -> bool:
        added, _, _ = add_to(e, [clean], category, fields)
        block.extend(o.block_id for o in added)
        if not added:  # the entity says this already: its block is the one to link
            block.extend(o.block_id for o in e.observations if o.text == clean and o.block_id)
        return bool(added)

    loaded = await store.update(name, change)
    return Filed(entity=loaded.entity.name, path=loaded.vp.rel, block_id=block[0] if block else "")


def filing_refusal(ctx: ToolContext, entity: str, text: str, *, source: str, category: str | None) -> None:
    """`file_observation`'s refusal of its arguments and of the entity as it is now, nothing
    written (a dry-run vault's preview of process_capture)."""
    from service.tools.memory.names import entity_name
    from service.tools.memory.writing import entity_store, observation_category, observation_text, provenance

    store = entity_store(ctx)
    name = entity_name(ctx, store, entity, "entity")
    observation_text(text, "text")
    provenance(ctx, source)
    observation_category(category, "category")
    store.must_exist(name, "write")


async def check_entity(ctx: ToolContext, entity: str) -> None:
    """`note_not_found` with suggestions when `entity` is not a memory entity the caller may write."""
    from service.tools.memory.names import entity_name
    from service.tools.memory.writing import entity_store

    store = entity_store(ctx)
    store.must_exist(entity_name(ctx, store, entity, "entity"), "write")


async def still_filed(ctx: ToolContext, rel: str | None, block: str | None) -> bool:
    """Whether the line a filing wrote (block `block` of the note `rel`) is still there: an undo
    of the plan that filed it, or a person deleting the line, takes it away. Unknown where:
    assumed there."""
    if not rel or not block:
        return True
    try:
        note = await asyncio.to_thread(ctx.vault.files.read, ctx.vault.paths.resolve(rel))
    except VaultgateError:
        return False
    return f"^{block}" in note.content
