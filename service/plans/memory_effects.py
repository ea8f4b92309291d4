"""The files a memory tool changes, for a plan's effects or a call's preview (`EffectsBuilder`,
given where memory tools write): the entity notes its arguments name, the capture inbox, and
the note process_capture files a capture into.

In a plan's check (`MemoryNotes.may` known), a call that needs its entity (add_observations,
delete_observations, create_relations and delete_relations of their source, delete_entities with
missing_ok false, supersede_observation, merge_observations, promote_experience, process_capture
into an entity) and meets none after the plan's earlier steps is the call's refusal
(`note_not_found`), and a create_relations whose target is neither an entity nor a note then is
its `validation_error` (`relation_targets`): listed in the effects' failures, so validate_plan
refuses the plan before any step runs. The entity is found as the tool finds it — the note
`note_of` names (a note the caller may not read is no entity's), under the caller's path ACL
first (`may`: the call answers `acl_denied` before looking), so a hidden entity and an absent one
get the same answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from service.plans.notepaths import note_file
from service.plans.texts import PlannedText
from service.vault.casing import fold


class NoteOf(Protocol):
    """The note of an entity by its name (`by_alias`: or by an alias, as every tool but
    delete_entities finds it; `any_case`: or in another letter case, as every tool but
    create_entities finds it: `service.memory.store.EntityStore.path_of`)."""

    def __call__(self, name: str, by_alias: bool = True, any_case: bool = True) -> str: ...


@dataclass(frozen=True)
class MemoryNotes:
    """Where memory tools write: the note of an entity by its name, and the capture inbox;
    `may(path, op)`: whether the caller's path ACL lets a call use `path` for `op` (read, write,
    delete), as the store's resolve asks it before looking for the note (None: not known, as in a
    single call's preview, whose call checks it itself)."""

    note_of: NoteOf
    inbox: str
    may: Callable[[str, str], bool] | None = None


class Builder(Protocol):
    """What of `service.plans.effects.EffectsBuilder` the memory tools' effects use."""

    def exists(self, rel: str) -> bool: ...

    def write(self, rel: str, *, acl: bool = True) -> None: ...

    def delete(self, rel: str, *, trash: bool = False) -> None: ...

    def recent_files_of(self, rel: str) -> list[str]: ...

    def unknown(self, step_id: str) -> None: ...

    def touch(self, rel: str) -> None: ...

    def lacks(self, rel: str) -> bool: ...

    def moved_away(self, rel: str) -> bool: ...

    def stepped(self) -> tuple[list[str], set[str]]: ...

    def planned_texts(self) -> dict[str, PlannedText]: ...

    absent: list[tuple[str, str]]
    failing: list[tuple[str, str]]
    refuses: str | None
    refuses_at: str | None
    paths: list[tuple[str, str]]
    late_writes: bool


# (made, gone) -> (the note an address names, how many fit): `service.plans.host.Host.resolve`
Resolve = Callable[[str, list[str], set[str]], Awaitable[tuple[str | None, int]]]

# The problem a plan's check reports for a memory call it finds failing (`failing._FAILS`' own).
MEMORY_FAILS = {
    "note_not_found": "of {}, no memory entity there",
    "validation_error": "to {}, neither a memory entity nor a note",  # create_relations' target
}


# Memory tools whose change the entity note's text as the plan's earlier steps leave it may refuse
# (the check asks the tool's own change: `service.tools.memory.planned`), and how each refusal is told.
MEMORY_TEXTS = {
    "add_observations": {  # each entity's note it adds to (`refuses_at`: the first that refuses)
        "validation_error": "to {}, whose note as the earlier steps leave it refuses it (a character the "
        "note's encoding lacks: unrepresentable)",
    },
    "supersede_observation": {
        "note_not_found": "of {}: its entity, or an observation it names, is not there once the earlier steps ran",
        "validation_error": "of {}, superseding an observation by itself or by one it supersedes",
    },
    "merge_observations": {  # the kept note's text, and the merged one's, as the earlier steps leave them
        "note_not_found": MEMORY_FAILS["note_not_found"],
        "validation_error": "into {}, whose note uses a block id of the merged entity's for another observation "
        "once the earlier steps ran (block_id_taken), or whose encoding lacks a character of the lines it copies "
        "(unrepresentable)",
    },
}

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
        if not isinstance(name, str) or not name.strip():
            return None
        found = memory.note_of(name.strip(), any_case=tool != "create_entities")
        return made_alike(b, memory, found, tool, name=name.strip())

    if tool in MEMORY_WRITES:
        field, key = MEMORY_WRITES[tool]
        items = args.get(field)
        rows = [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []
        rels = [note(row.get(key, row.get(f"{key}_"))) for row in rows]  # `from` is `from_` in a dump
        for rel in dict.fromkeys(r for r in rels if r is not None):
            if tool == "create_entities":
                if not b.exists(rel):  # an existing one is only reported
                    b.write(rel)
            elif there(b, memory, rel, "write", step_id):
                if b.refuses is not None and rel == b.refuses_at:  # its note as the earlier steps leave it refuses it
                    b.failing.append((b.refuses, rel))
                    b.paths.append((rel, "write"))
                    b.touch(rel)
                else:
                    b.write(rel)
        if tool == "create_relations":  # each target must be there: read, so a step making it runs first
            targets = [str(row["to"]) for row in rows if isinstance(row.get("to"), str) and row["to"].strip()]
            for rel in dict.fromkeys(r for t in targets for r in (note(t), note_file(t)) if r is not None):
                b.touch(rel)
        return True
    if tool == "delete_entities" and isinstance(args.get("entityNames"), list):
        names = [n.strip() for n in args["entityNames"] if isinstance(n, str) and n.strip()]
        for rel in dict.fromkeys(made_alike(b, memory, memory.note_of(n, by_alias=False), tool) for n in names):
            if not b.exists(rel) and memory.may is not None:  # asked of the ACL first, there or not
                b.paths.append((rel, "delete"))
                if args.get("missing_ok") is False:  # else a missing name is only reported
                    there(b, memory, rel, "delete", step_id)
            elif b.exists(rel):
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
        rel = str(note(args.get(named[tool])))
        if tool in MEMORY_TEXTS and b.refuses is not None and there(b, memory, rel, "write", step_id):
            b.failing.append((b.refuses, rel))  # the note's text as the earlier steps leave it refuses it
            b.paths.append((rel, "write"))
            b.touch(rel)
        elif tool == "memory_store" or there(b, memory, rel, "write", step_id):  # the others need the entity
            b.write(rel)
        merged = note(args.get("mergedName")) if tool == "merge_observations" else None
        if merged is not None:  # read: a step changing or deleting it keeps its order with the merge
            b.touch(merged)
            there(b, memory, merged, "read", step_id)  # the call needs that entity too
        return True
    if tool == "capture":
        b.write(memory.inbox.strip("/"))
        return True
    if tool == "process_capture":
        b.write(memory.inbox.strip("/"))  # its item is marked processed
        _process_capture(b, memory, args, note, step_id)
        return True
    return False


def made_alike(b: Builder, memory: MemoryNotes, rel: str, tool: str, *, name: str | None = None) -> str:
    """The entity note `rel` (the one `note_of` finds in the vault as it is) or, in a plan's check
    where none is there after the earlier steps, the one note an earlier step made in its folder
    whose file name is `rel`'s in another letter case or Unicode spelling: the entity it made,
    which the call finds by its name in any case (`Zed` for `zed`, `Zoë` in NFC for NFD; as
    `EntityStore.path_of`: a create_entities refuses such a twin, it does not find it); else, for
    a call that finds entities by name and alias (`name` given), the one entity note of that folder
    an earlier step's set_properties gave `name` as its `name` or one of its `aliases`."""
    if memory.may is None or not b.lacks(rel):
        return rel
    folder, _, stem = rel.rpartition("/")
    if tool != "create_entities":
        key = fold(stem)
        made = [p for p in b.stepped()[0] if p.rpartition("/")[0] == folder and fold(p.rpartition("/")[2]) == key]
        if len(made) == 1:
            return made[0]
    named = [p for p in b.planned_texts() if p.rpartition("/")[0] == folder and name and _named(b, p, name)]
    return named[0] if len(named) == 1 else rel


def _named(b: Builder, rel: str, name: str) -> bool:
    """Whether the earlier steps' set_properties calls on `rel` leave `name` its `name` or an alias."""
    props: dict[str, Any] = {}
    for tool, args in b.planned_texts()[rel].calls:
        if tool == "set_properties" and isinstance(args.get("properties"), dict):
            props |= {k: v for k, v in args["properties"].items() if k in ("name", "aliases")}
    aliases = props.get("aliases")
    values = [props.get("name"), *(aliases if isinstance(aliases, list) else [aliases])]
    return any(isinstance(v, str) and fold(v.strip()) == fold(name) for v in values)


def entity_note(b: Builder, memory: MemoryNotes, tool: str, name: object) -> str | None:
    """The note of the entity `name` a memory call changes, as `memory_effect` finds it (None: no
    name, or several entities fit: the call answers that)."""
    if not isinstance(name, str) or not name.strip():
        return None
    try:
        return made_alike(b, memory, memory.note_of(name.strip()), tool, name=name.strip())
    except Exception:  # noqa: BLE001 - several entities fit (ambiguous_note): the call answers it
        return None


def there(b: Builder, memory: MemoryNotes, rel: str, op: str, step_id: str) -> bool:
    """Whether the entity note `rel` a call needs is there for it after the plan's earlier steps;
    where it is not, and the caller may use `rel` for `op` (else the call answers `acl_denied`
    first, whatever is there: the ACL check reports that, and the effects list no change of it) and
    read it (else a note there is a drop box's, which the caller is not told of), the call's
    `note_not_found`, listed in `absent`.
    True when not known: a single call's preview, a plan with a step whose files only the run
    knows (it may make the entity), or an entity note an earlier step moved (found by its name)."""
    if memory.may is not None and not memory.may(rel, op):  # the call's acl_denied, reported by the ACL check:
        b.paths.append((rel, op))  # no file it changes
        b.touch(rel)
        return False
    if memory.may is None or b.late_writes or not memory.may(rel, "read"):
        return True
    if not b.lacks(rel):  # there now, or made by an earlier step
        return True
    if b.moved_away(rel):  # the call finds the entity by its name at the path an earlier step moved it to
        return True
    b.absent.append((step_id, rel))
    b.paths.append((rel, op))
    b.touch(rel)
    return False


async def relation_targets(
    b: Builder, memory: MemoryNotes, args: dict[str, Any], resolve: Resolve, *, deleting: bool = False
) -> dict[str, str] | None:
    """A create_relations' targets found as the call finds them (`service.tools.memory.names.
    relation_link`: the entity's note, read under the caller's ACL, else a note of the vault by
    name) after the plan's earlier steps: each target as written -> the link text the call writes
    (the note's path without `.md`), for its note's planned text (`service.plans.texts.LINKS`);
    None when one is known only to the run. One that names neither an entity nor a note is the
    call's `validation_error`, listed in `failing` under the entity's note path; one several
    notes fit is left to the call (`ambiguous_note`). `deleting`: a delete_relations' targets,
    which the call compares as written where it finds no link for them (none, several, one it may
    not read): nothing fails."""
    if memory.may is None or b.late_writes:
        return None
    rows = args.get("relations")
    targets = [r["to"].strip() for r in rows or () if isinstance(r, dict) and isinstance(r.get("to"), str)]
    links: dict[str, str] | None = {}
    for target in dict.fromkeys(t for t in targets if t):
        try:
            rel: str | None = memory.note_of(target)
        except Exception:  # noqa: BLE001 - several entities fit (ambiguous_note): the call answers it
            rel = f"{target}.md" if deleting else None
        if rel is not None and not memory.may(rel, "read"):  # the call's acl_denied: the ACL check reports it
            if not deleting:
                b.paths.append((rel, "read"))
            rel = f"{target}.md" if deleting else None
        elif rel is not None and not b.exists(rel) and b.moved_away(rel):
            rel = None  # found by its name where an earlier step moved it: the run knows its link
        elif rel is not None and not b.exists(rel):
            found, fits = await resolve(target, *b.stepped())
            if found is None and fits == 0 and not deleting:
                b.failing.append(("validation_error", rel))
            rel = f"{target}.md" if found is None and deleting else found
        if links is not None and rel is not None:
            links[target] = rel.removesuffix(".md")
        else:
            links = None
    return links


async def pending_capture(
    call: Call, capture_id: object, known: dict[str, dict[str, str] | None]
) -> dict[str, str] | None:
    """The pending capture `capture_id` names, as the check finds it with the caller's list_captures
    (`service.plans.texts.CAPTURE`: its text and the inbox note its item is in); None when only the
    run finds it (none such pending in the first pages, its item not written in an inbox yet).
    `known`: the pending captures read so far in this check (read once, whatever the steps)."""
    if not isinstance(capture_id, str):
        return None
    if not known:
        known[""] = None  # read, even where none is pending
        cursor: object = None
        for _page in range(_CAPTURE_PAGES):
            asked = {"status": "pending", "limit": 200} | ({"cursor": cursor} if cursor else {})
            page, error = await call("list_captures", asked)
            if error is not None or page is None:
                break
            for item in page.get("items") or ():
                if isinstance(item, dict) and isinstance(item.get("id"), str):
                    known[item["id"]] = _pending(item)
            cursor = page.get("next_cursor")
            if not cursor:
                break
    return known.get(capture_id)


def _pending(item: dict[str, Any]) -> dict[str, str] | None:
    """A list_captures item's text and inbox note; None when its item is not in the inbox yet (the
    call writes it first) or it holds no text."""
    link, end = str(item.get("block_link") or ""), f"#^{item['id']}]]"
    if not link.startswith("[[") or not link.endswith(end) or not isinstance(item.get("text"), str):
        return None
    return {"text": item["text"], "inbox": link[2 : -len(end)] + ".md"}


_CAPTURE_PAGES = 5  # of 200 pending captures: past 1,000, a capture's text is left to the run
# A read tool's answer in a plan's check (`service.plans.host.Host.call`): (result, error)
Call = Callable[[str, dict[str, Any]], Awaitable[tuple[dict[str, Any] | None, Any]]]


def merged_note(
    b: Builder, memory: MemoryNotes, args: dict[str, Any], text_of: Callable[[str], Any]
) -> tuple[str, Any] | None:
    """A merge_observations' merged entity's note, as the call finds it after the plan's earlier
    steps, and its text as they leave it (`text_of`: `service.plans.texts.MERGED`); None: only the run knows
    it (not there now, moved by an earlier step, a step whose files only the run knows)."""
    name = args.get("mergedName")
    if memory.may is None or b.late_writes or not isinstance(name, str) or not name.strip():
        return None
    try:
        rel = made_alike(b, memory, memory.note_of(name.strip()), "merge_observations", name=name.strip())
    except Exception:  # noqa: BLE001 - several entities fit (ambiguous_note): the call answers it
        return None
    if not memory.may(rel, "read") or not b.exists(rel):
        return None
    return rel, text_of(rel)


def _process_capture(
    b: Builder, memory: MemoryNotes, args: dict[str, Any], note: Callable[[object], str | None], step_id: str
) -> None:
    """Where process_capture files the capture: the entity's note, the new note, or the note
    its target names (a name that is no path: not knowable here)."""
    target, action = args.get("target"), args.get("action")
    if not isinstance(target, str) or not target.strip() or action == "discard":
        return
    if action == "entity" and note(target) is not None:
        if there(b, memory, str(note(target)), "write", step_id):  # filed into an entity there
            b.write(str(note(target)))
    elif action == "new_note" or (action == "note" and b.exists(note_file(target))):
        b.write(note_file(target))
    else:
        b.unknown(step_id)
