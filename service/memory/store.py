"""The entity store: memory entities as notes in the memory folder, changed safely by many agents.

One note per entity (`service.memory.model`), at `<folder>/<file_name(name)>.md`. Every change
is a read-modify-write of that one note under a per-note lock in this process, written with the
etag it read (compare-and-swap in the file layer), and tried again on a conflict: 32 agents adding
observations to one entity lose none and duplicate none, and a person's edit saved in between is
read again, never overwritten. The store takes the vault's files and a path resolver that applies
the caller's path ACL; it never checks scopes itself.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from service.errors import AlreadyExists, Conflict, NoteNotFound, ValidationFailed
from service.markdown.yaml_edit import invalid_frontmatter
from service.memory.lookup import MAX_NOTES, EntityNames
from service.memory.model import Entity, file_name, inbox_key, linked_stem, parse, render
from service.plans.effects import MemoryNotes
from service.settings import MemorySettings
from service.vault import notelocks
from service.vault.casing import CaseTwin, fold
from service.vault.commit import Action, Undo
from service.vault.decoding import UTF8
from service.vault.files import VaultFiles
from service.vault.journal import recording
from service.vault.keyed_locks import KeyedLocks
from service.vault.offloop import size_of, sized
from service.vault.paths import VaultPath
from service.vault.spelling import on_disk

MAX_NAME = 200
CAS_TRIES = 50


@dataclass(frozen=True, slots=True)
class _Waiting:
    change: Callable[[Entity], bool]
    done: asyncio.Future[Loaded]
    size: int = 0  # the characters its change brings (`update`'s `size`)


class EntityWrites:
    """What the entity stores of one app share (`Services.memory_writes`): a lock per note, the
    changes waiting for it (`EntityStore.update`'s group commit), the entity names read
    (`lookup.EntityNames`, bounded) and the capture inbox's locks. The app's own: two apps in one
    process, whose vaults may share an id (`main`), never write one's change into the other's
    note, keep the other's names or wait for the other's inbox."""

    def __init__(self, max_names: int = MAX_NOTES) -> None:
        self.locks = KeyedLocks()
        self.inbox_locks = KeyedLocks()  # the capture inbox's (`service.tools.memory.captures`)
        self.waiting: dict[tuple[str, str], list[_Waiting]] = {}  # note -> changes waiting for its lock
        self.names = EntityNames(max_names)


def _stem(rel: str) -> str:
    """A note's file name without `.md`: what names an entity whose frontmatter does not parse."""
    return rel.rsplit("/", 1)[-1].removesuffix(".md")


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def check_name(name: str, field: str = "name") -> str:
    """A legal entity name, trimmed: any text of 1 to 200 characters on one line that is not only
    dots; `AC/DC`, `Q3: plan?` and `../../outside` are names (their notes get safe file names)."""
    text = name.strip()
    reason = None
    if not text:
        reason = "empty"
    elif len(text) > MAX_NAME:
        reason = "too_long"
    elif any(ord(c) < 32 or ord(c) == 127 for c in text):
        reason = "control_character"
    elif set(text) == {"."}:
        reason = "only_dots"
    if reason is not None:
        raise ValidationFailed(
            f"{field} {text[:40]!r} is not a valid entity name ({reason.replace('_', ' ')})",
            details={"field": field, "reason": reason},
            hint="An entity name is one line of 1 to 200 characters, not only dots.",
        )
    return text


@dataclass(frozen=True, slots=True)
class Loaded:
    vp: VaultPath
    entity: Entity
    etag: str
    text: str = ""  # the note as read (empty for one just written)
    encoding: str = UTF8  # the note's as read: an edit and its undo keep it (`decoding.encode_edit`)


class EntityStore:
    """Entities of one vault's memory folder, for one caller (`resolve` applies its ACL)."""

    def __init__(
        self,
        vault_id: str,
        files: VaultFiles,
        folder: str,
        resolve: Callable[[str, str], VaultPath],
        inbox: str = "",
        *,
        shared: EntityWrites,
    ) -> None:
        self.vault_id = vault_id
        self._shared = shared
        self.files = files
        self.folder = folder.strip().strip("/")
        self._resolve = resolve
        # The capture inbox (`[memory] inbox`), in the memory folder by default, is never an entity
        self._inbox = inbox_key(inbox)

    def is_inbox(self, rel: str) -> bool:
        return bool(self._inbox) and rel.casefold() == self._inbox

    def path_of(self, name: str, op: str = "read", *, any_case: bool = True) -> VaultPath:
        """The entity's note: `<folder>/<file_name(name)>.md`, or when there is none, the note
        whose `name` property is `name` (renamed by hand) among those the caller may read — a note
        the path ACL hides from it is no entity of that name, as an absent one (never named in an
        answer or refusal) — else, to read or write, the one such note whose `aliases` hold it (a
        merged entity's name; never to delete: an alias never sends the entity it names to the
        trash); else (`any_case`) the one entity of that name in another letter case or Unicode
        spelling, as note names are taken ('william gibson' is 'William Gibson'; several:
        `ambiguous_note`) — not for a create, which refuses a case twin; for a write, a name whose
        note would be the capture inbox is refused."""
        vp = self._resolve(f"{self.folder}/{file_name(name)}.md", op)
        if not self.files.has_note(vp) and not self.is_inbox(vp.rel):
            root, folder = self.files.paths.root, vp.abs.parent
            other = self._shared.names.note_named(
                root, folder, name, self._not_an_entity_in_folder, by_alias=op != "delete", any_case=any_case
            )
            if other is not None:
                vp = self._resolve(f"{self.folder}/{other}", op)
        if op != "read" and self.is_inbox(vp.rel):
            raise ValidationFailed(
                f"{name!r} names the capture inbox ({vp.rel}), not a memory entity",
                details={"field": "name", "entity": name, "path": vp.rel, "reason": "capture inbox"},
                hint="Pick another name for the entity; capture and process_captures work on the inbox.",
            )
        return vp

    async def names_read(self) -> None:
        """Read the entity names of the folder's notes changed since the last lookup in a worker
        thread (a long note is read whole to decide its encoding), so the name lookups that follow
        on the event loop (`path_of`) find them known and only list the folder."""
        try:
            folder = self._resolve(f"{self.folder}/{file_name('entity')}.md", "read").abs.parent
        except Exception:  # noqa: BLE001 - the folder not readable: the lookups answer as before
            return
        skip = self._not_an_entity_in_folder
        await asyncio.to_thread(self._shared.names.note_named, self.files.paths.root, folder, "", skip)

    def _not_an_entity_in_folder(self, file: str) -> bool:
        return self._not_an_entity(f"{self.folder}/{file}")

    def _not_an_entity(self, rel: str) -> bool:
        """The capture inbox, or a note the caller may not read."""
        if self.is_inbox(rel):
            return True
        try:
            self._resolve(rel, "read")
        except Exception:  # noqa: BLE001 - denied (or not a path): no entity for this caller
            return True
        return False

    def load(self, name: str, op: str = "read", *, any_case: bool = True) -> Loaded | None:
        vp = self.path_of(name, op, any_case=any_case)
        if self.is_inbox(vp.rel) or not self.files.has_note(vp):
            return None
        note = self.files.read(vp)
        entity = parse(note.content)
        entity.name = entity.name or name
        return Loaded(vp, entity, note.etag, note.content, note.encoding)

    def require(self, name: str, op: str = "read") -> Loaded:
        found = self.load(name, op)
        if found is None:
            raise self._unknown(name)
        return found

    def must_exist(self, name: str, op: str = "read") -> None:
        """`require` without reading the note: a check before a write that reads it anyway."""
        if not self.files.has_note(self.path_of(name, op)):
            raise self._unknown(name)

    def _unknown(self, name: str) -> NoteNotFound:
        return NoteNotFound(
            f"no memory entity {name!r}",
            details={"entity": name, "suggestions": self.suggestions(name)},
            hint="create_entities makes it; read_memory_graph lists the entities.",
        )

    def entities(self) -> Iterator[Loaded]:
        """Every entity note the caller may read, by path."""
        folder = self._resolve(self.folder, "read")
        if not folder.abs.is_dir():
            return
        for rel, entry in self.files.walk(folder, recursive=False):
            if not rel.endswith(".md") or not entry.is_file() or self.is_inbox(rel):
                continue
            try:
                vp = self._resolve(rel, "read")
                note = self.files.read(vp)
            except Exception:  # noqa: BLE001 - a note the caller may not read, or one that vanished
                continue
            entity = parse(note.content, _stem(vp.rel))
            if entity.name:
                yield Loaded(vp, entity, note.etag)

    def suggestions(self, name: str) -> list[str]:
        """Up to five entity names close to `name`: matched on the file names (an entity's file
        name is its name with unsafe characters escaped), so a miss reads only the notes it
        suggests, not every entity note of the folder."""
        import difflib

        folder = self._resolve(self.folder, "read")
        if not folder.abs.is_dir():
            return []
        stems = {
            entry.name[:-3]: rel
            for rel, entry in self.files.walk(folder, recursive=False)
            if rel.endswith(".md") and not self.is_inbox(rel)
        }
        # Compared in any letter case ('STEPH ANGO' is close to 'Steph Ango'), other case only first
        folded: dict[str, list[str]] = {}
        for stem in sorted(stems):
            folded.setdefault(fold(stem), []).append(stem)
        close = difflib.get_close_matches(fold(file_name(name)), list(folded), n=5, cutoff=0.5)
        out: list[str] = []
        for stem in [s for key in close for s in folded[key]][:5]:
            try:
                note = self.files.read(self._resolve(stems[stem], "read"))
            except Exception:  # noqa: BLE001 - a note the caller may not read, or one that vanished
                continue
            if found := parse(note.content, stem).name:
                out.append(found)
        return out

    async def create(self, entity: Entity) -> Loaded:
        vp = self.path_of(entity.name, "write", any_case=False)
        async with self._shared.locks(self.vault_id, vp.rel):
            if self.files.has_note(vp):
                raise AlreadyExists(f"memory entity {entity.name!r} exists", details={"path": vp.rel})
            entity.created = entity.created or now_iso()
            entity.updated = entity.updated or entity.created
            result = await self.files.write(vp, render(entity), create_only=True)
            return Loaded(vp, entity, result.etag)

    async def update(
        self, name: str, change: Callable[[Entity], bool], before: list[str] | None = None, *, size: int = 0
    ) -> Loaded:
        """Apply `change` (which says whether it changed anything) to the entity as it is on disk
        now, and write it with the etag read; a concurrent edit makes it read and apply again.

        Calls that wait for the same note are written together (group commit): the one that gets
        the note's lock applies every change queued by then, in arrival order, in one write, and
        the others return its result, so 32 agents adding to one entity wait for a few writes, not
        for 32. `before` (an all-or-nothing call's change, whose undo must be its own) is written
        alone and receives the note's text the change was applied to; so is a change made while
        the plan journal records (a plan step, a journaled call: `service.vault.journal`), whose
        write must be recorded in its own context, holding only its own change — in another call's
        group it was journaled by none, or journaled with the others' changes, which its undo then
        took back. `size`: the characters the change brings (an add_observations' texts); with the
        note's own, past `OFF_LOOP_CHARS` the changes and the rendering run in a worker thread
        (`service.vault.offloop`), the note's lock held, the event loop free for other calls."""
        vp = self.path_of(name, "write")
        key = (self.vault_id, vp.rel)
        lock, waiting = self._shared.locks(*key), self._shared.waiting
        if before is not None or recording():
            async with lock:
                return await self._write(name, vp, [change], before, size)
        me = _Waiting(change, asyncio.get_running_loop().create_future(), size)
        waiting.setdefault(key, []).append(me)
        async with lock:
            if me.done.done():  # a call before this one wrote its change along with its own
                return me.done.result()
            batch = waiting.pop(key, [me])
            try:
                loaded = await self._write(name, vp, [w.change for w in batch], None, sum(w.size for w in batch))
            except Exception:
                if len(batch) == 1:
                    raise
                # one call's change failed (its budget, its bad input): each is written alone, so no
                # other call answers that call's error; a change re-applies to the note as it is
                for w in batch:
                    if w is me or w.done.done():
                        continue
                    try:
                        alone = await self._write(name, vp, [w.change], None, w.size)
                    except Exception as own:  # noqa: BLE001 - that call's own answer
                        if not w.done.done():
                            w.done.set_exception(own)
                    else:
                        if not w.done.done():
                            w.done.set_result(alone)
                return await self._write(name, vp, [me.change], None, me.size)
            except BaseException as exc:
                for w in batch:
                    if w is not me and not w.done.done():
                        w.done.set_exception(exc if isinstance(exc, Exception) else Conflict("the write was cancelled"))
                raise
            for w in batch:
                if w is not me and not w.done.done():
                    w.done.set_result(loaded)
            return loaded

    async def _write(
        self,
        name: str,
        vp: VaultPath,
        changes: list[Callable[[Entity], bool]],
        before: list[str] | None,
        size: int = 0,
    ) -> Loaded:
        for _ in range(CAS_TRIES):
            # A long note is read and parsed in a worker thread too (the event loop free meanwhile).
            current = await sized(size_of(vp), self._current, name, vp)
            entity = current.entity
            text = await sized(len(current.text) + size, _applied, entity, changes, current.text)
            if text is None:
                return current
            try:
                result = await self.files.write(
                    vp, text, expected_etag=current.etag, must_exist=True, encoding=current.encoding
                )
            except Conflict as exc:
                if notelocks.busy(exc):  # another process holds the note past the bounded wait
                    raise
                continue  # a person (or another process) saved the note in between: read it again
            if before is not None:
                before.append(current.text)
            return Loaded(vp, entity, result.etag, encoding=current.encoding)
        raise Conflict(f"memory entity {name!r} kept changing while it was updated", details={"path": vp.rel})

    def _current(self, name: str, vp: VaultPath) -> Loaded:
        """The entity as its note holds it now, for a write (`require`); a frontmatter that does
        not parse is refused: rendered from what parsed, its properties (or one of two) would be lost."""
        current = self.require(name, "write")
        if current.entity.fm_error is not None:  # `frontmatter.write_refusal`, decided by `parse`
            raise invalid_frontmatter(vp.rel, current.entity.fm_error)
        return current

    # -- several entities, all or nothing (`service.vault.commit`) ---------------------------------

    def updating(self, name: str, change: Callable[[Entity], bool], *, undoable: bool = True, size: int = 0) -> Action:
        """`update` as a commit action: its undo writes the note back as it was, unless it changed
        since. Not `undoable` (the only change of its call): it is written with the changes
        other calls queue for the note (group commit), and its undo does nothing."""

        async def action() -> Undo:
            before: list[str] | None = [] if undoable else None
            done = await self.update(name, change, before, size=size)
            if not before:
                return _nothing
            return partial(self._put_back, done.vp, before[0], done.etag, done.encoding)

        return action

    def creating(self, entity: Entity, made: list[Loaded], existed: list[str] | None = None) -> Action:
        """`create` as a commit action (the note it made goes on `made`); its undo removes the note.
        With `existed`, an entity another call made since the caller looked (two agents creating
        one name at once) goes on it instead, as a name that was there: nothing written or undone
        (a case twin stays refused)."""

        async def action() -> Undo:
            try:
                loaded = await self.create(entity)
            except CaseTwin:
                raise
            except AlreadyExists:
                if existed is None:
                    raise
                existed.append(entity.name)
                return _nothing
            made.append(loaded)
            return partial(self._remove, loaded.vp, loaded.etag)

        return action

    async def _put_back(self, vp: VaultPath, text: str, etag: str, encoding: str) -> None:
        await self.files.write(vp, text, expected_etag=etag, must_exist=True, encoding=encoding)

    async def _remove(self, vp: VaultPath, etag: str) -> None:
        await self.files.delete(vp, permanent=True, expected_etag=etag, own=True)  # a long one unread


def _applied(entity: Entity, changes: list[Callable[[Entity], bool]], text: str) -> str | None:
    """The note's new text once every change is applied in order (over its `text`: each line it
    leaves keeps its own line end); None when none changed it."""
    if not any([change(entity) for change in changes]):
        return None
    entity.updated = now_iso()
    return render(entity, text)


async def _nothing() -> None:
    """The undo of a change that wrote nothing."""


def memory_notes(
    memory: MemorySettings,
    root: Path | None = None,
    readable: Callable[[str], bool] | None = None,
    may: Callable[[str, str], bool] | None = None,
    names: EntityNames | None = None,
) -> MemoryNotes:
    """Where the memory tools write, for previews and plan effects (`service.plans.effects`):
    in the vault at `root`, the note `EntityStore.path_of` finds (a note renamed by hand too, a
    note or folder the disk names in NFD), by its vault path (NFC); as there, a note renamed by
    hand that the caller may not read (`readable`) is not the entity's. `may(path, op)`: the
    caller's path ACL, as the store's resolve applies it (`MemoryNotes.may`). `names`: the app's
    entity names read (`EntityWrites.names`); without them, names read for this preview alone."""
    folder = memory.folder.strip().strip("/")
    known = names if names is not None else EntityNames()
    inbox = inbox_key(memory.inbox)

    def note_of(name: str, by_alias: bool = True, any_case: bool = True) -> str:
        stem = linked_stem(name, folder)
        if stem is not None:  # `[[Zed]]`: the note it links when there is one, else the name it spells
            linked = f"{folder}/{stem}.md"
            if root is not None and (root / on_disk(str(root), linked)).is_file():
                return linked
            name = stem
        rel = f"{folder}/{file_name(name)}.md"
        if root is None or (root / on_disk(str(root), rel)).is_file():
            return rel
        other = known.note_named(
            root,
            root / on_disk(str(root), folder),
            name,
            lambda f: (
                (bool(inbox) and f"{folder}/{f}".casefold() == inbox)
                or (readable is not None and not readable(f"{folder}/{f}"))
            ),
            by_alias=by_alias,
            any_case=any_case,
        )
        return rel if other is None else f"{folder}/{other}"

    return MemoryNotes(note_of=note_of, inbox=memory.inbox, may=may)
