"""What each mutating tool does to the vault a plan's check simulates: the tool kinds the checker
and the previews sort calls by, and `tool_effect`, the rule per tool that feeds one call's
resolved arguments to an `service.plans.effects.EffectsBuilder` (which keeps the vault as the
steps so far leave it).

A note tool's `path` names its note, a create makes it (`if_exists` decides what a taken path
makes), an edit needs it there, a delete soft-deletes it into the trash unless `permanent`, a
copy makes its copy, a move moves the note or the folder (its link rewrites are counted by its
own dry run: `service.plans.dry_runs`); a periodic note's path comes from the vault's
periodic-notes settings; the memory tools' notes from `service.plans.memory_effects`; admin,
session, macro and plan-control tools change server state (`state_changes`). A tool without a
rule writes files found only at run time (`bulk_changes`). execute_template's note is the one its
`folder` and `filename` name, as Obsidian names it (`template_note`): a later step edits, moves or
deletes it as any note the plan made, though its text is the run's (Templater renders it).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, Protocol

from service.dates import iso_day
from service.dates.moment import MomentError
from service.dates.periods import DAILY_NOTES, PERIODIC_NOTES_DATA, period_config
from service.errors import PathInvalid, VaultgateError
from service.obsidian.attachments import with_extension_of
from service.obsidian.available_path import available_path
from service.plans.memory_effects import MemoryNotes, memory_effect
from service.plans.notepaths import canvas_file, new_note
from service.plans.notepaths import note_path as _note
from service.plans.summary import PlanEffects, Risk
from service.plans.texts import PlannedText
from service.vault.paths import normalize
from service.vault.settings_files import read_json

CREATE_OR_MODIFY = frozenset({"create_note", "write_note", "append_note", "prepend_note"})
MODIFY = frozenset({"patch_note", "set_properties", "delete_property", "add_tags", "remove_tags"})
MOVES = frozenset({"move_note", "rename_note"})
REWRITES = frozenset({"rename_tag", "rewrite_links", "replace_text"})  # edit notes their dry run lists
NOTE_WRITES = frozenset({"set_task_status", "apply_template", "write_canvas"})  # `path` is the file changed
PERIODIC = frozenset({"create_periodic_note", "append_to_periodic_note"})
TEMPLATE_NOTE = "execute_template"  # Templater makes a note in the running Obsidian (`template_note`)
# the arguments that name the note a call makes: one known only at run time leaves that note to the run
NAMING = {**dict.fromkeys(PERIODIC, frozenset({"period", "date"})), TEMPLATE_NOTE: frozenset({"folder", "filename"})}
# Tools whose `path` is an existing note's address, found as a wikilink finds it (a new note's
# path as written where none fits): the effects name the file found (`service.plans.check`)
ADDRESSED = CREATE_OR_MODIFY | MODIFY | MOVES | {"delete_note", "copy_note", "set_task_status", "apply_template"}
# Tools that edit a note and never create one (append_note does with `create_if_missing`)
EDITS = MODIFY | {"append_note", "prepend_note", "set_task_status"}
# edits that may not find their target (or refuse the note's text: an append after a block it leaves open,
# a character its encoding lacks; replace_text's of the one note its `path` names)
TEXT_TARGETS = frozenset(
    {"patch_note", "set_task_status", "add_tags", "append_note", "prepend_note", "write_note", "replace_text"}
)
WHOLE_NOTE = ADDRESSED - {"patch_note"}  # their `path` names a whole note: `Note#Section` is a validation_error
BOOKMARKS = frozenset({"add_bookmark", "remove_bookmark"})
BOOKMARKS_FILE = ".obsidian/bookmarks.json"
STATE = {  # tools that change the server's state, not vault files: what they change
    "reindex": "rebuilds the vault's index",
    "reload_vault": "reloads the vault's settings and index",
    "reset_vault_cache": "deletes and rebuilds the vault's index cache",
    "start_session": "opens an agent session",
    "end_session": "ends the agent session",
    "save_macro": "saves a macro",
    "delete_macro": "deletes a macro",
    "cancel_plan": "stops a background plan run",
}


class Builder(Protocol):
    """What of `service.plans.effects.EffectsBuilder` the rules use (it imports this module)."""

    effects: PlanEffects
    paths: list[tuple[str, str]]
    refused: list[tuple[str, str]]
    absent: list[tuple[str, str]]
    failing: list[tuple[str, str]]
    refuses: str | None
    refuses_at: str | None
    late_writes: bool

    @property
    def root(self) -> Path | None: ...
    @property
    def memory(self) -> MemoryNotes | None: ...
    def risk(self, level: Risk) -> None: ...
    def touches_unknown(self) -> None: ...
    def touch(self, rel: str) -> None: ...
    def unknown(self, step_id: str) -> None: ...
    def exists(self, rel: str) -> bool: ...
    def lacks(self, rel: str) -> bool: ...
    def moved_away(self, rel: str) -> bool: ...
    def stepped(self) -> tuple[list[str], set[str]]: ...
    def planned_texts(self) -> dict[str, PlannedText]: ...
    def folder_now(self, rel: str) -> bool: ...
    def folder_on_disk(self, rel: str) -> bool: ...
    def new_folder(self, rel: str) -> None: ...
    def write(self, rel: str, *, acl: bool = True) -> None: ...
    def create(self, rel: str, step_id: str, if_exists: str) -> bool: ...
    def edit(self, rel: str, step_id: str) -> None: ...
    def delete(self, rel: str, *, trash: bool = False) -> None: ...
    def copied(self, src: str, dst: str) -> None: ...
    def recent_files_of(self, rel: str) -> list[str]: ...
    def move(self, src: str, dst: str, *, rename: bool = False) -> Any: ...
    def move_made_folder(self, folder: str, new_path: str, *, rename: bool) -> None: ...


def tool_effect(
    b: Builder, tool: str, args: dict[str, Any], *, destructive: bool, scopes: tuple[str, ...], step_id: str
) -> None:
    """Feed one mutating call with fully resolved arguments to `b` (see the module docstring)."""
    b.risk("writes")
    if destructive or any(s.startswith("delete:") for s in scopes):
        b.risk("destructive")
    if any(s.startswith("execute:") for s in scopes):
        b.risk("commands")
        b.effects.commands.append(f"{step_id}: {tool}")
        b.touches_unknown()
    path = args.get("path")
    if tool == "create_note" and isinstance(path, str):
        b.create(new_note(path), step_id, str(args.get("if_exists", "error")))
    elif tool in EDITS and isinstance(path, str) and not (tool == "append_note" and args.get("create_if_missing")):
        b.edit(new_note(path), step_id)
    elif tool in (*CREATE_OR_MODIFY, "replace_text") and isinstance(path, str) and b.refuses is not None:
        b.edit(new_note(path), step_id)  # the note's text refuses it (an emoji into a cp1252 note): failing
    elif tool in CREATE_OR_MODIFY and isinstance(path, str) or tool in MODIFY and isinstance(path, str):
        b.write(new_note(path))
    elif tool == "delete_note" and isinstance(path, str):
        b.delete(_note(path), trash=not args.get("permanent"))
        for ws in b.recent_files_of(_note(path)):  # Obsidian's recent files forget it
            b.write(ws, acl=False)
    elif tool == "copy_note" and isinstance(args.get("new_path"), str):
        new = str(args["new_path"]).strip()
        into = new.endswith("/") and bool(new.strip("/")) and isinstance(path, str)  # 'Copies/': into it
        src = _note(str(path))
        # a copy of a base, a canvas, an attachment keeps its extension (`base_files.file_copy`)
        file = (
            isinstance(path, str)
            and not src.lower().endswith(".md")
            and (src.lower().endswith(".base") or b.exists(src))
        )
        dst = (
            f"{new}{src.rsplit('/', 1)[-1]}"
            if into
            else with_extension_of(src, _note(new, ""))  # as file_copy names it
            if file
            else new_note(new)
        )
        made = b.create(dst, step_id, "overwrite" if args.get("overwrite") else "error")
        if isinstance(path, str):
            b.touch(_note(path))
            if made:
                b.copied(_note(path), dst)
    elif tool in MOVES and isinstance(path, str) and isinstance(args.get("new_path"), str):
        _move(b, tool, path, str(args["new_path"]).strip())
    elif tool == "create_folder" and isinstance(path, str):
        b.new_folder(path.strip("/"))
    elif tool == "bulk_create_notes" and isinstance(args.get("notes"), list):
        rels = [new_note(n["path"]) for n in args["notes"] if isinstance(n, dict) and isinstance(n.get("path"), str)]
        taken = [] if args.get("overwrite") else [rel for rel in rels if b.exists(rel)]
        if taken:  # the call refuses them all at the first note already there: writes none
            b.refused.append((step_id, taken[0]))
            b.paths += [(rel, "write") for rel in rels]
        for rel in rels if not taken else ():
            b.write(rel)
    elif tool in NOTE_WRITES and isinstance(path, str):
        b.write(canvas_file(path) if tool == "write_canvas" else _note(path))
    elif tool == TEMPLATE_NOTE and (templated := template_note(b, args)) is not None:
        b.write(templated)  # its text is Templater's: a call with no rule leaves it unforeseen (`texts`)
    elif tool in BOOKMARKS:
        b.write(BOOKMARKS_FILE, acl=False)
    elif tool in PERIODIC and periodic_path(b.root, args) is not None:
        rel = str(periodic_path(b.root, args))
        if tool == "create_periodic_note" and b.exists(rel):
            b.touch(rel)  # there already: the call answers it and changes nothing (still asks to write it)
            b.paths.append((rel, "write"))
        else:
            b.write(rel)
    elif b.memory is not None and memory_effect(b, b.memory, tool, args, step_id):
        pass
    elif tool in STATE:
        b.effects.state_changes.append(f"{step_id}: {tool} {STATE[tool]}")
        b.touches_unknown()
    elif tool in PERIODIC:
        b.unknown(step_id)
    else:
        b.effects.bulk_changes.append(f"{step_id}: {tool}")
        b.touches_unknown()


def _move(b: Builder, tool: str, path: str, new: str) -> None:
    """move_note / rename_note of `path` to `new`: a note, or a folder the plan's earlier steps make."""
    folder = path.strip().strip("/")
    src = _note(folder if path.strip().endswith("/") and folder else path)  # 'Proj/' is the folder, no 'Proj/.md'
    into = new.endswith("/") and bool(new.strip("/"))  # 'Archive/': into it, keeping the name
    if folder and b.folder_now(folder) and not b.folder_on_disk(folder):
        b.move_made_folder(folder, new, rename=tool == "rename_note")
    else:
        b.move(src, f"{new.rstrip('/')}/{src.rsplit('/', 1)[-1]}" if into else _note(new), rename=tool == "rename_note")
    b.touches_unknown()  # its link rewrites change notes found at run time


def template_note(b: Builder, args: dict[str, Any]) -> str | None:
    """The note execute_template makes with `args`, as Templater asks Obsidian to name it
    (`vault.getAvailablePath(folder/filename, "md")`: 'Kickoff 1.md', 'Kickoff 2.md', ... while
    the name is taken after the steps so far; the handler's preview names it so too); None when
    its folder is no vault path (the call's own static check refuses it)."""
    raw = args.get("folder")
    folder = raw.strip().strip("/") if isinstance(raw, str) else ""
    name = args.get("filename")
    name = name if isinstance(name, str) else "Untitled"
    name = name[: -len(".md")] if name.lower().endswith(".md") else name  # Templater adds it (`ExecuteTemplateIn`)
    try:
        stem = normalize(f"{folder}/{name}" if folder else name)
    except PathInvalid:
        return None
    return available_path(f"{stem}.md", lambda rel: b.exists(rel) or b.folder_now(rel))


def periodic_path(root: Path | None, args: dict[str, Any]) -> str | None:
    """The periodic note's path, as the periodic tools compute it from the vault's settings
    (None: not knowable here, no vault folder or a date the settings cannot place)."""
    if root is None:
        return None
    period = args.get("period", "daily")
    day_text = args.get("date")
    try:
        day = iso_day(day_text) if isinstance(day_text, str) else date.today()
        config = period_config(period, read_json(root, PERIODIC_NOTES_DATA), read_json(root, DAILY_NOTES))
        return config.path_for(day)
    except (MomentError, VaultgateError, ValueError, KeyError):
        return None
