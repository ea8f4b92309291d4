"""The memory's name lookup: which note of the memory folder holds the entity of a name when its
file is not named so (a person renamed the entity in its frontmatter, or the file in Obsidian).
Each note's name is read once per change and kept, per app and bounded (`EntityNames`)."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import ParamSpec, TypeVar

from service.errors import AmbiguousNote, PathInvalid
from service.markdown.frontmatter import split
from service.memory.body import OBS_HEADING, REL_HEADING
from service.memory.model import parse
from service.vault import dirfd
from service.vault.casing import fold
from service.vault.decoding import decode_start
from service.vault.paths import realpath_now

# what a note's entity name is read as: (mtime_ns, size, entity name, its aliases, both folded: `fold`)
_Known = tuple[int, int, str, tuple[str, ...], str, frozenset[str]]
NAME_READ = 64 * 1024  # the name is in the frontmatter, at the note's start
_READ = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
MAX_NOTES = 20_000  # names kept (a few hundred bytes each); past it, the least recently used go


# One call's listings of memory folders (`one_listing`), by the folder's real path: None outside one.
P = ParamSpec("P")
R = TypeVar("R")
_LISTED: ContextVar[dict[str, list[tuple[str, _Known]]] | None] = ContextVar("memory_listed", default=None)


@contextlib.contextmanager
def one_listing() -> Iterator[None]:
    """The name lookups made inside (in this task, and the worker threads it starts) share one
    listing of the memory folder: a call that looks up 1,000 relation targets no file name spells
    lists the folder once, not once a target (each listing stats every note: 26 ms for 5,000, on
    the event loop). What a lookup sees is the folder as it was at the call's first miss."""
    token = _LISTED.set({})
    try:
        yield
    finally:
        _LISTED.reset(token)


def listed_once(call: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """`call` (a memory tool naming up to 100 entities) inside `one_listing`, its writes included:
    each name no file name spells (an entity renamed by hand) was a listing of its own, twice
    (found, then written): 40 such names were 160 listings of the folder (A4 s95's leftover)."""

    @functools.wraps(call)
    async def once(*args: P.args, **kwargs: P.kwargs) -> R:
        with one_listing():
            return await call(*args, **kwargs)

    return once


class EntityNames:
    """The entity names of the memory folder's notes read so far, by the note's absolute path,
    each checked against its size and mtime before use: one app's (`store.EntityWrites`), at most
    `max_notes` (the least recently used dropped first: a note dropped is read again when next
    listed). `note_named` runs on the event loop and in `EntityStore.names_read`'s thread."""

    def __init__(self, max_notes: int = MAX_NOTES) -> None:
        self.max_notes = max_notes
        self._known: OrderedDict[str, _Known] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._known)

    def note_named(
        self,
        root: Path,
        folder: Path,
        name: str,
        skip: Callable[[str], bool],
        *,
        by_alias: bool = False,
        any_case: bool = False,
    ) -> str | None:
        with self._lock:
            try:
                return _note_named(self._known, root, folder, name, skip, by_alias, any_case)
            finally:
                while len(self._known) > self.max_notes:
                    self._known.popitem(last=False)


def _note_named(
    known_names: OrderedDict[str, _Known],
    root: Path,
    folder: Path,
    name: str,
    skip: Callable[[str], bool],
    by_alias: bool = False,
    any_case: bool = False,
) -> str | None:
    """The file name of the note directly in `folder` (its path as the disk spells it, in the
    vault at `root`) whose entity name (its `name` property) is
    `name`, for a note whose file name is not that name's: a person renamed the entity in its
    frontmatter, or renamed its file in Obsidian. Each note is read once per change (size and
    mtime), so a miss costs one directory listing. `skip(file name)`: the capture inbox, a note
    the caller may not read; asked only of a note that names `name` (a path check opens files:
    asked of every note, a miss in 5,000 notes took 0.25 s on the event loop). File
    names are given (to `skip` too) and returned in NFC, whatever form the disk spells them in
    (an NFD name from macOS: `service.vault.spelling`).

    `by_alias`: when no note has that name, the one note whose `aliases` hold it exactly (a
    name merged into another entity by the consolidation plane is kept as its alias, and a
    person's alias names the note for Obsidian too); none when two notes hold it.

    `any_case`: else the one note whose entity name is `name` in another letter case or Unicode
    spelling (`fold`: 'william gibson', 'WILLIAM GIBSON' for 'William Gibson'; NFD for NFC), else
    (`by_alias`) the one whose aliases hold it so; `ambiguous_note` naming the entities when
    several names fold alike (notes made by hand: the tools refuse a case twin).

    A link on the way inside the vault (a memory folder that links to another folder of the vault)
    is resolved first, as a read resolves it; the resolved folder is then opened with no link on
    the way (`service.vault.dirfd`, walked from the vault root) and its notes read relative to it,
    never through a link. A link that leads out of the vault is never followed: the folder is not
    listed (None), nor when a folder was swapped for a link since it was resolved; a note that is
    itself a link is no entity here. The names are kept by the resolved folder's path."""
    try:
        rel = folder.relative_to(root).as_posix()  # ValueError: not in the vault
        base = Path(os.path.realpath(root))
        real = Path(realpath_now(base / rel, rel)) if rel != "." else base
        inside = real.relative_to(base).as_posix() if real != base else ""  # ValueError: it leads out
        if (listed := _LISTED.get()) is not None and str(real) in listed:  # listed already in this call
            return _matched(listed[str(real)], name, skip, by_alias, any_case)
        with dirfd.folder(base, inside) as opened:  # no link on the way (one swapped in since)
            return _listed(known_names, opened.fd, str(real), name, skip, by_alias, any_case)
    except (OSError, PathInvalid, ValueError):
        return None


def _listed(
    known_names: OrderedDict[str, _Known],
    fd: int,
    folder: str,
    name: str,
    skip: Callable[[str], bool],
    by_alias: bool,
    any_case: bool,
) -> str | None:
    """`_note_named` in the folder open as `fd` (`folder`: its absolute path, the names' keys)."""
    entries = _entries(known_names, fd, folder)
    if (listed := _LISTED.get()) is not None:
        listed[folder] = entries
    return _matched(entries, name, skip, by_alias, any_case)


def _entries(known_names: OrderedDict[str, _Known], fd: int, folder: str) -> list[tuple[str, _Known]]:
    """Each note of the folder open as `fd` (its file name in NFC) with its names, read again when
    it changed (size, mtime); the names of notes gone are forgotten."""
    out: list[tuple[str, _Known]] = []
    seen: set[str] = set()
    for entry in list(os.scandir(fd)):
        nfc = entry.name if entry.name.isascii() else unicodedata.normalize("NFC", entry.name)
        if not nfc.endswith(".md") or nfc.startswith("."):
            continue
        path = os.path.join(folder, entry.name)
        try:
            if not entry.is_file(follow_symlinks=False):  # a link is no entity note here (it may lead out)
                continue
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        seen.add(path)
        known = known_names.get(path)
        if known is not None:
            known_names.move_to_end(path)
        if known is None or known[:2] != (st.st_mtime_ns, st.st_size):
            try:
                head = _head(fd, entry.name)
            except OSError:
                continue
            named = parse(_named_part(head), nfc[:-3])  # `name` (else `# title`) and `aliases`
            aliases = tuple(a.strip() for a in named.aliases)
            entity = named.name.strip()
            known = (st.st_mtime_ns, st.st_size, entity, aliases, fold(entity), frozenset(map(fold, aliases)))
            known_names[path] = known
        out.append((nfc, known))
    prefix = os.path.join(folder, "")
    for gone in [p for p in known_names if p.startswith(prefix) and p not in seen]:
        del known_names[gone]
    return out


def _matched(
    entries: list[tuple[str, _Known]], name: str, skip: Callable[[str], bool], by_alias: bool, any_case: bool
) -> str | None:
    """The file name among `entries` of the note of the entity `name` (`_note_named`'s rules)."""
    found: str | None = None
    aliased: list[str] = []
    key = fold(name) if any_case and name else ""
    folded: dict[str, str] = {}  # file name -> entity name, for the names `name` folds like
    folded_alias: list[str] = []
    for nfc, known in entries:
        names_it = known[2] == name or (by_alias and name in known[3]) or bool(key and key in (known[4], *known[5]))
        if names_it and skip(nfc):  # asked only of a note that names it: a path check opens files
            continue
        if known[2] == name and found is None:
            found = nfc
        elif by_alias and name and name in known[3]:
            aliased.append(nfc)
        elif key and known[4] == key:
            folded[nfc] = known[2]
        elif key and by_alias and key in known[5]:
            folded_alias.append(nfc)
    if found is not None or len(aliased) == 1 or not key:
        return found if found is not None or len(aliased) != 1 else aliased[0]
    if len(folded) > 1:
        names = sorted(folded.values())
        raise AmbiguousNote(
            f"{len(folded)} memory entities are named {name!r} in some letter case: {', '.join(map(repr, names))}",
            details={"entity": name, "candidates": names},
            hint="Give the entity's name as written (one of details.candidates).",
        )
    if folded:
        return next(iter(folded))
    return folded_alias[0] if len(folded_alias) == 1 else None


def _head(fd: int, name: str) -> str:
    """The start of the note `name` of the folder open as `fd` (never through a link) as the index
    and `VaultFiles.read` decode it, so `name: Zoé` is the name the graph lists
    (`decoding.decode_start`: the encoding is decided from the whole note)."""
    with os.fdopen(os.open(name, _READ, dir_fd=fd), "rb") as f:
        return decode_start(f, NAME_READ)


def _named_part(head: str) -> str:
    """The part of a note's start its entity name is read from: up to its memory sections (the
    `# title` is taken before them only), so a lookup never parses every observation of every note."""
    start = max(split(head).body_start - 1, 0)  # in the body: a property's text may hold anything
    for heading in (f"\n{OBS_HEADING}\n", f"\n{REL_HEADING}\n"):
        at = head.find(heading, start)
        if at >= 0:
            head = head[: at + 1]
    return head
