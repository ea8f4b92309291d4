"""The files a memory tool changes, for a plan's effects or a call's preview (`EffectsBuilder`,
given where memory tools write): the entity notes its arguments name, the capture inbox, and
the note process_capture files a capture into."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from service.plans.notepaths import note_file


class NoteOf(Protocol):
    """The note of an entity by its name (`by_alias`: or by an alias, as every tool but
    delete_entities finds it; `any_case`: or in another letter case, as every tool but
    create_entities finds it: `service.memory.store.EntityStore.path_of`)."""

    def __call__(self, name: str, by_alias: bool = True, any_case: bool = True) -> str: ...


@dataclass(frozen=True)
class MemoryNotes:
    """Where memory tools write: the note of an entity by its name, and the capture inbox."""

    note_of: NoteOf
    inbox: str


class Builder(Protocol):
    """What of `service.plans.effects.EffectsBuilder` the memory tools' effects use."""

    def exists(self, rel: str) -> bool: ...

    def write(self, rel: str, *, acl: bool = True) -> None: ...

    def delete(self, rel: str, *, trash: bool = False) -> None: ...

    def recent_files_of(self, rel: str) -> list[str]: ...

    def unknown(self, step_id: str) -> None: ...

    def touch(self, rel: str) -> None: ...


# Memory tools: (list argument, field naming the entity whose note the item changes).
MEMORY_WRITES = {
    "create_entities": ("entities", "name"),
    "add_observations": ("observations", "entityName"),
    "create_relations": ("relations", "from"),
    "delete_observations": ("deletions", "entityName"),
    "delete_relations": ("relations", "from"),
}


def memory_effect(b: Builder, memory: MemoryNotes, tool: str, args: dict[str, Any], step_id: str) -> bool:
    """The entity notes (or the inbox) a memory tool writes, named by its arguments, fed to `b`;
    False: `tool` is no memory tool (or its arguments name no note)."""

    def note(name: object) -> str | None:
        return (
            memory.note_of(name.strip(), any_case=tool != "create_entities")
            if isinstance(name, str) and name.strip()
            else None
        )

    if tool in MEMORY_WRITES:
        field, key = MEMORY_WRITES[tool]
        items = args.get(field)
        rows = [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []
        rels = [note(row.get(key, row.get(f"{key}_"))) for row in rows]  # `from` is `from_` in a dump
        for rel in dict.fromkeys(r for r in rels if r is not None):
            if not (tool == "create_entities" and b.exists(rel)):  # an existing one is only reported
                b.write(rel)
        if tool == "create_relations":  # each target must be there: read, so a step making it runs first
            targets = [str(row["to"]) for row in rows if isinstance(row.get("to"), str) and row["to"].strip()]
            for rel in dict.fromkeys(r for t in targets for r in (note(t), note_file(t)) if r is not None):
                b.touch(rel)
        return True
    if tool == "delete_entities" and isinstance(args.get("entityNames"), list):
        names = [n.strip() for n in args["entityNames"] if isinstance(n, str) and n.strip()]
        for rel in dict.fromkeys(memory.note_of(n, by_alias=False) for n in names):
            if b.exists(rel):
                b.delete(rel, trash=True)  # to the vault's trash, as delete_note does
                for ws in b.recent_files_of(rel):  # Obsidian's recent files forget it
                    b.write(ws, acl=False)
        return True
    named = {
        "memory_store": "key",
        "promote_experience": "entity",
        "supersede_observation": "entityName",
        "merge_observations": "entityName",  # the merged entity's note is only read
    }
    if tool in named and note(args.get(named[tool])) is not None:
        b.write(str(note(args.get(named[tool]))))
        return True
    if tool == "capture":
        b.write(memory.inbox.strip("/"))
        return True
    if tool == "process_capture":
        b.write(memory.inbox.strip("/"))  # its item is marked processed
        _process_capture(b, args, note, step_id)
        return True
    return False


def _process_capture(b: Builder, args: dict[str, Any], note: Callable[[object], str | None], step_id: str) -> None:
    """Where process_capture files the capture: the entity's note, the new note, or the note
    its target names (a name that is no path: not knowable here)."""
    target, action = args.get("target"), args.get("action")
    if not isinstance(target, str) or not target.strip() or action == "discard":
        return
    if action == "entity" and note(target) is not None:
        b.write(str(note(target)))
    elif action == "new_note" or (action == "note" and b.exists(note_file(target))):
        b.write(note_file(target))
    else:
        b.unknown(step_id)
