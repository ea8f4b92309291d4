"""The effects summary of a plan: what it will create, change, delete and move, and its risk.

`EffectsBuilder` is fed each mutating step's resolved arguments in run order and simulates the
vault's file set as it goes (a note created by step 3 is modified, not created, by step 7; a
note moved away no longer exists at its old path, nor do a moved folder's files: `folder_moved`);
a soft delete creates the note's copy in the trash. What each tool does to it is
`service.plans.tool_effects` (the tool kinds and one rule per kind). A step whose paths are only
known at run time (a reference to a mutating step's result) is listed in `unresolved`.
The same builder previews a single call (`service.plans.preview`). The risk level is the
highest of: `read-only`, `writes`, `destructive` (a delete, a destructive tool or one in the
delete scope class), `commands` (a tool holding an execute scope).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.graph.workspace_paths import WORKSPACES, repoint
from service.plans.memory_effects import MemoryNotes as MemoryNotes
from service.plans.notepaths import note_file
from service.plans.notepaths import note_path as _note
from service.plans.summary import MovedFile, PlanEffects, Risk
from service.plans.texts import UNFORESEEN, PlannedText
from service.plans.tool_effects import tool_effect
from service.vault.paths import trash_copy
from service.vault.settings_files import read_json

_RISK_ORDER: tuple[Risk, ...] = ("read-only", "writes", "destructive", "commands")

UNIQUE_SUFFIXES = 1000  # create_note if_exists='unique' tries 'Name 1.md' … 'Name 1000.md'


class EffectsBuilder:
    """Accumulates the effects of the mutating steps, in run order (see the module docstring)."""

    def __init__(
        self,
        exists: Callable[[str], bool],
        root: Path | None = None,
        memory: MemoryNotes | None = None,
        is_folder: Callable[[str], bool] | None = None,
        is_file: Callable[[str], bool] | None = None,
        trash: str | None = None,
        read_only: Callable[[str], bool] | None = None,
    ) -> None:
        self._exists_on_disk = exists
        self._is_file = is_file  # whether a file is there now, whoever may read it (None: not asked)
        self._is_folder = is_folder  # whether a folder is there now (the folders a new file makes)
        self._folders: dict[str, bool] = {}  # folder -> exists, after the steps seen so far
        self._root = root  # the vault folder: periodic notes' settings are read from it
        self._memory = memory  # where memory tools write
        self._trash = trash  # the vault's trash folder, where a soft delete moves a note (None: not known)
        self._read_only = read_only  # whether a file in the vault now is read-only (chmod a-w: not changed)
        self.unwritable: list[tuple[str, str]] = []  # (step id, path): a change of a read-only file (refused)
        self._step_id = ""
        self.effects = PlanEffects()
        self._now: dict[str, bool] = {}  # path -> exists, after the steps seen so far
        self.paths: list[tuple[str, str]] = []  # (path, op) the plan touches, for the ACL check
        self._touched: set[str] | None = set()  # files and folders the current call touches; None: unknown
        self._stepped: set[str] = set()  # files a step writes, moves or deletes
        self._stepped_names: dict[str, list[str]] = {}  # their file names, lower case -> paths
        self.refused: list[tuple[str, str]] = []  # (step id, path): a create the call refuses (already_exists)
        self.absent: list[tuple[str, str]] = []  # (step id, path): an edit of a note not there (note_not_found)
        self.failing: list[tuple[str, str]] = []  # (code, path): an edit the note's foreseen text refuses
        self.refuses: str | None = None  # the code the note refuses the next call's edit with (set by the check)
        self.refuses_at: str | None = None  # of a call editing several notes (add_observations): which refuses
        self.captures: dict[str, dict[str, str] | None] = {}  # pending captures, as the check read them once
        self.ambiguous: list[str] = []  # addresses several notes fit (ambiguous_note), as the steps come
        self._guessed: dict[str, bool | None] = {}  # the last move's note paths -> whether there before it
        self._call: tuple[str, dict[str, Any]] = ("", {})  # the call being fed, as written (its notes' texts)
        self.texts: dict[str, PlannedText] = {}  # path -> its text as the steps so far leave it
        self.late_writes = False  # a mutating step whose files or arguments only the run knows was fed

    def exists(self, rel: str) -> bool:
        if rel not in self._now:
            self._now[rel] = self._exists_on_disk(rel)
        return self._now[rel]

    def note_exists(self, target: str) -> bool:
        """Whether the note a target names as written (`Final`: `Final.md`) is there after the
        steps seen so far."""
        return self.exists(note_file(target))

    def planned(self, target: str) -> str | None:
        """The file a note address's target (`Launch plan`, `Projects/Launch plan.md`) names
        where the steps seen so far decide it: the path as written when a step wrote a file
        there, else the one file an earlier step made or moved whose path ends with it (`Proj/A`
        is `Archive/Proj/A.md` once a step moved `Proj` there, as a wikilink finds it), else the
        path as written when a step moved or deleted the file there (None: the vault as it is
        now decides, as it does while a file is at the path as written: the tools take that file
        before any name, so `Home` stays `Home.md` after a step made `Inbox/Home.md`)."""
        rel = _note(target)
        if rel in self._stepped and self._now.get(rel):
            return rel
        if rel not in self._stepped and self.exists(rel):
            return None
        tail = "/" + rel.lower()
        named = self._stepped_names.get(tail.rpartition("/")[2], ())
        made = [p for p in named if self._now.get(p) and ("/" + p.lower()).endswith(tail)]
        if len(made) == 1:
            return made[0]
        return rel if rel in self._stepped else None

    def _step_on(self, rel: str) -> None:
        """`rel` is a file a step writes, moves or deletes (what `planned` looks in; not a soft
        delete's copy in the trash, which no note address names)."""
        if rel not in self._stepped and not (self._trash is not None and rel.startswith(f"{self._trash}/")):
            self._stepped.add(rel)
            self._stepped_names.setdefault(rel.rpartition("/")[2].lower(), []).append(rel)

    def named(self, rel: str) -> list[str]:
        """The files steps wrote, moved or deleted so far with `rel`'s file name (any letter case)."""
        return list(self._stepped_names.get(rel.rpartition("/")[2].lower(), ()))

    def folder_now(self, rel: str) -> bool:
        """Whether a folder is at `rel` after the steps seen so far."""
        known = self._folders.get(rel)
        if known is None:
            known = self._folders[rel] = self._is_folder is not None and self._is_folder(rel)
        return known

    def _parents(self, rel: str) -> None:
        """The folders a file at `rel` makes where none is (`Reports/2026/Q4.md` makes
        `Reports` and `Reports/2026` in a vault without them): listed in `folders_created`."""
        if self._is_folder is None:
            return
        parts = rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            folder = "/".join(parts[:i])
            if not self._folders.get(folder, False) and not self._is_folder(folder):
                self.add(self.effects.folders_created, folder)
            self._folders[folder] = True

    def risk(self, level: Risk) -> None:
        if _RISK_ORDER.index(level) > _RISK_ORDER.index(self.effects.risk_level):
            self.effects.risk_level = level

    def touch(self, rel: str) -> None:
        """The current call touches `rel` (without changing it: a copy's source)."""
        self._touch(rel)

    def _touch(self, rel: str) -> None:
        if self._touched is not None:
            self._touched.add(rel)

    def add(self, items: list[str], rel: str) -> None:
        if rel not in items:
            items.append(rel)

    def kept(self, rel: str) -> bool:
        """Whether `rel` is a file in the vault now (no step made or moved it) made read-only: the
        call changing it is refused (`vault_unwritable`), listed in `unwritable`."""
        if self._read_only is None or rel in self._stepped or not self.exists(rel) or not self._read_only(rel):
            return False
        self.unwritable.append((self._step_id, rel))
        self._touch(rel)
        return True

    def unwritable_now(self, rel: str) -> None:
        """The call naming `rel` is refused now for a read-only file it would change (its dry run
        answered `vault_unwritable`: a note holding a link a move would rewrite), once a call."""
        if not any(step == self._step_id for step, _ in self.unwritable):
            self.unwritable.append((self._step_id, rel))

    def since(self) -> tuple[int, int, int, int, int]:
        """How many refused, absent, unwritable, ambiguous and failing calls were found so far."""
        return len(self.refused), len(self.absent), len(self.unwritable), len(self.ambiguous), len(self.failing)

    def stepped(self) -> tuple[list[str], set[str]]:
        """The files earlier steps made or moved somewhere, and those they moved away or deleted."""
        return [p for p in self._stepped if self._now.get(p)], {p for p in self._stepped if not self._now.get(p)}

    def write(self, rel: str, *, acl: bool = True) -> None:
        """A file written (`acl`: checked against the path ACL; a settings file is not a note)."""
        if self.kept(rel):
            return
        e = self.effects
        if self.exists(rel) and rel not in e.files_created:
            self.add(e.files_modified, rel)
        else:
            self.add(e.files_created, rel)
            e.passing.discard(rel)
            self._now[rel] = True
            self._parents(rel)
        if acl:  # a note (not a settings file, not a soft delete's copy): its text changes
            self.paths.append((rel, "write"))
            tool, args = self._call
            if tool == "bulk_create_notes":  # this note of the batch
                notes = [n for n in args.get("notes") or [] if isinstance(n, dict) and isinstance(n.get("path"), str)]
                tool, args = "create_note", next((n for n in notes if _note(n["path"]) == rel), {})
            self.texts[rel] = self._text(rel).then(tool, args)
        self._step_on(rel)
        self._touch(rel)

    def text_of(self, rel: str) -> PlannedText:
        """The text at `rel` as the steps so far leave it (`service.plans.texts`)."""
        return self._text(rel)

    def _text(self, rel: str) -> PlannedText:
        """The text at `rel` as the steps so far leave it (`service.plans.texts`)."""
        found = self.texts.get(rel)
        return found if found is not None else PlannedText(rel if self._exists_on_disk(rel) else None)

    def copied(self, src: str, dst: str) -> None:
        """copy_note made `dst` with `src`'s text, its links rewritten for `dst`'s folder (the
        tool's `graph.copy_links`, which `service.plans.texts` composes as the call `copy_note`)."""
        if self._now.get(dst):
            self.texts[dst] = self._text(src).then("copy_note", {"path": src, "new_path": dst})

    def edited(self, rel: str, tool: str, args: dict[str, Any]) -> None:
        """`tool` (a rewrite over notes found by its dry run) edits the text at `rel` with `args`."""
        self.texts[rel] = self._text(rel).then(tool, args)

    def unforeseen(self, rels: list[str] | None = None) -> bool:
        """Mark the texts at `rels` as changed the way only the run knows (a call whose content
        waits for an earlier step's result); returns whether the steps so far change notes so
        (those, or files only the run names: a command, a tool without a rule, a late step)."""
        for rel in rels or ():
            self.texts[rel] = self._text(rel).then(UNFORESEEN, {})
        e = self.effects
        return bool(e.bulk_changes or e.commands or self.late_writes)

    def planned_texts(self) -> dict[str, PlannedText]:
        """The notes there after the steps so far whose text is not what the disk holds at
        their path (made, edited, moved or copied by a step): what a move's rewrites read."""
        return {rel: t for rel, t in self.texts.items() if self._now.get(rel) and (t.calls or t.origin != rel)}

    def _moved_text(self, old: str, new: str) -> None:
        self.texts[new] = self._text(old)
        self.texts[old] = PlannedText(None)  # no file there: a later append_note starts from nothing

    def create(self, rel: str, step_id: str, if_exists: str) -> bool:
        """A note a call creates; where one is already there, what create_note's `if_exists`
        (copy_note's `overwrite`) makes of it: `overwrite` writes it, `unique` writes the first
        free 'Name 1.md', 'Name 2.md', … ('Books 1.base') as the tool does, and `error` is the call's refusal
        (`already_exists`): listed in `refused`, which a dry-run vault's preview answers
        (`service.dispatch.preview`) and a plan's check lists in `failures`; a refused note is
        not written (the paths stay under the ACL check, as the call checks them first)."""
        if self.exists(rel) and if_exists == "unique":
            stem, ext = rel.rsplit(".", 1) if rel.lower().endswith((".md", ".base")) else (rel, "md")
            free = (f"{stem} {n}.{ext}" for n in range(1, UNIQUE_SUFFIXES + 1))  # 'Books 1.base' too
            rel = next((p for p in free if not self.exists(p) and not self.folder_now(p)), rel)
        if self.exists(rel) and if_exists != "overwrite":
            self.refused.append((step_id, rel))
            self.paths.append((rel, "write"))
            self._touch(rel)
            return False
        self.write(rel)
        return True

    def edit(self, rel: str, step_id: str) -> None:
        """A note a call edits, which it does not create: where none is there after the steps
        seen so far (one moved away or deleted by an earlier step, or none on disk at all: one
        the caller may not read is left to the call), the call's refusal (`note_not_found`),
        listed in `absent` and not written (its path stays under the ACL check); likewise, in
        `failing`, where the note's text as the steps leave it refuses the edit (`refuses`: a patch
        of a heading the note lacks)."""
        if self.lacks(rel):
            self.absent.append((step_id, rel))
        elif self.refuses is not None:  # its own refusal of the note's text as the steps leave it
            self.failing.append((self.refuses, rel))
        else:
            self.write(rel)
            return
        self.paths.append((rel, "write"))
        self._touch(rel)

    def moved_away(self, rel: str) -> bool:
        """Whether an earlier step moved the file at `rel` elsewhere, alone or with its folder."""
        return any(m.from_path == rel or (m.folder and rel in (m.moved_files or ())) for m in self.effects.files_moved)

    def lacks(self, rel: str) -> bool:
        """Whether no file is at `rel` after the steps seen so far, as a call finds it (one moved
        away or deleted by an earlier step, or none on disk at all: one the caller may not read is
        left to the call); False when not known (a single call's preview: `is_file` not given)."""
        return self._is_file is not None and not self.exists(rel) and (rel in self._stepped or not self._is_file(rel))

    def delete(self, rel: str, *, trash: bool = False) -> None:
        """A note deleted; `trash`: moved to the vault's trash, which gets a new file (at the first
        free name there, as `VaultFiles.delete` picks it: the trash is no note path, no ACL check)."""
        if self.kept(rel):
            return
        e = self.effects
        if rel in e.files_created:
            e.files_created.remove(rel)
        else:
            self.add(e.files_deleted, rel)
        if not self._exists_on_disk(rel):  # made or moved there by an earlier step: no file before nor after
            e.passing.add(rel)
        if rel in e.files_modified:
            e.files_modified.remove(rel)
        self._now[rel] = False
        self.texts[rel] = PlannedText(None)
        self.paths.append((rel, "delete"))
        self._step_on(rel)
        self._touch(rel)
        if trash and self._trash is not None:
            self.write(trash_copy(f"{self._trash}/{rel}", lambda p: self.exists(p) or self.folder_now(p)), acl=False)

    def recent_files_of(self, rel: str) -> list[str]:
        """The workspace files whose recent files list `rel` (a delete rewrites them:
        `service.graph.workspace_paths`)."""
        found = ((ws, read_json(self._root, ws)) for ws in WORKSPACES) if self._root is not None else ()
        return [ws for ws, data in found if isinstance(data, dict) and repoint(data, {}, {rel})]

    def step(
        self,
        tool: str,
        args: dict[str, Any],
        *,
        destructive: bool,
        scopes: tuple[str, ...],
        step_id: str,
        given: dict[str, Any] | None = None,
    ) -> frozenset[str] | None:
        """One mutating call with fully resolved arguments (`given`: as written, a note address
        with its '#section' where `args` names the note's file); returns the files and folders it
        touches, or None when that is not known from its arguments (the runner then orders it
        after and before every other change: `service.plans.schedule`)."""
        self._touched, self._step_id, self._call = set(), step_id, (tool, args if given is None else given)
        tool_effect(self, tool, args, destructive=destructive, scopes=scopes, step_id=step_id)
        self.refuses = self.refuses_at = None
        return frozenset(self._touched) if self._touched is not None else None

    def touches_unknown(self) -> None:
        """The current call touches files known only at run time (a move's link rewrites, a command)."""
        self._touched = None

    def unknown(self, step_id: str) -> None:
        """A step whose files are known only at run time."""
        self.effects.unresolved.append(step_id)
        self._touched = None

    @property
    def root(self) -> Path | None:
        """The vault folder (periodic notes' settings are read from it; None: not known)."""
        return self._root

    @property
    def memory(self) -> MemoryNotes | None:
        """Where memory tools write (None: not known)."""
        return self._memory

    def folder_on_disk(self, rel: str) -> bool:
        """Whether a folder is at `rel` in the vault now, before any step."""
        return self._is_folder is not None and self._is_folder(rel)

    def new_folder(self, rel: str) -> None:
        """A folder create_folder makes (with its parents)."""
        if self._is_folder is None:
            self.add(self.effects.folders_created, rel)
        self._parents(rel + "/")
        self.paths.append((rel, "write"))
        self._touch(rel)

    def move(self, src: str, dst: str, *, rename: bool = False) -> MovedFile:
        if rename and "/" not in dst and "/" in src:  # rename_note: a new name in the same folder
            dst = f"{src.rsplit('/', 1)[0]}/{dst}"
        self.kept(src)  # listed as refused; the move's effects are still counted
        moved = MovedFile(from_path=src, to_path=dst)
        self.effects.files_moved.append(moved)
        self._moved_on(src, dst)
        self._guessed = {src: self._now.get(src), dst: self._now.get(dst)}
        self._moved_text(src, dst)
        self._now[src] = False
        self._now[dst] = True
        self._step_on(src)
        self._step_on(dst)
        self._parents(dst)
        self.paths.append((src, "write"))
        self.paths.append((dst, "write"))
        return moved

    def move_made_folder(self, folder: str, new_path: str, *, rename: bool) -> None:
        """A move of a folder no vault holds now, which earlier steps make: moved as a folder, as
        the call finds it at run time (a path that is a folder moves the folder), with the files
        those steps put in it; its own dry run, on the vault as it is now, cannot see it."""
        given = (
            new_path[2:-2] if len(new_path) > 4 and new_path.startswith("[[") and new_path.endswith("]]") else new_path
        )
        dst = given.strip().strip("/")
        if given.strip().endswith("/") and dst:  # 'Archive/': into it, keeping the name
            dst = f"{dst}/{folder.rsplit('/', 1)[-1]}"
        if rename and "/" not in dst and "/" in folder:  # rename_note: a new name in the same folder
            dst = f"{folder.rsplit('/', 1)[0]}/{dst}"
        moved = self.move(folder, dst)
        moving = self.folder_moved(folder, dst, {})
        moved.folder, moved.moved_files = True, sorted({*moving, *moving.values()})

    def _moved_on(self, old: str, new: str) -> None:
        """A file moves: one an earlier step made is created at its new path instead, and a path
        no file is at before the plan nor after it (`passing`) is no file the plan changes."""
        e = self.effects
        if old in e.files_created:
            e.files_created[e.files_created.index(old)] = new
        if not self._exists_on_disk(old):
            e.passing.add(old)
        e.passing.discard(new)

    def folder_moved(self, folder: str, dest: str, pairs: dict[str, str]) -> dict[str, str]:
        """The last move, taken for a note's by `move`, moves the folder `folder` to `dest` (its
        own dry run says so, listing the files there now: `pairs`, old path -> new). Returns the
        files it moves after the steps seen so far: those of `pairs` an earlier step did not move
        away or delete, and those an earlier step put in the folder. The vault after it holds
        each at its new path and none at its old one, and the note paths `move` guessed from
        the arguments (`Proj` -> `Proj.md`) are as they were: a later step that writes a moved
        note modifies it, and one that creates a note at an old path makes a new one."""
        for rel, was in self._guessed.items():
            self.texts.pop(rel, None)  # no note moved: a folder does
            if was is None:
                self._now.pop(rel, None)
            else:
                self._now[rel] = was
        moving = {old: new for old, new in pairs.items() if self.exists(old)}
        inside = f"{folder}/"
        for rel, there in list(self._now.items()):  # files earlier steps made or moved into it
            if there and rel.startswith(inside) and rel not in moving:
                moving[rel] = f"{dest}/{rel[len(inside) :]}"
        for old in moving:
            self._now[old] = False
            parts = old.split("/")[:-1]
            for i in range(len(parts), 0, -1):
                parent = "/".join(parts[:i])
                if parent != folder and not parent.startswith(inside):
                    break
                self._folders[parent] = False
            self._step_on(old)
            self.paths.append((old, "write"))
        for old, new in moving.items():
            self._moved_on(old, new)
            self._moved_text(old, new)
            self._now[new] = True
            self._step_on(new)
            self._parents(new)
            self.paths.append((new, "write"))
        return moving
