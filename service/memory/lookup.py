"""The memory's name lookup: which note of the memory folder holds the entity of a name when its
file is not named so (a person renamed the entity in its frontmatter, or the file in Obsidian).
Each note's name is read once per change and kept (`_names`)."""

from __future__ import annotations

import os
import threading
import unicodedata
from collections.abc import Callable
from pathlib import Path

from service.markdown.frontmatter import split
from service.memory.model import OBS_HEADING, REL_HEADING, parse
from service.vault.decoding import decode_start

# note's absolute path -> (mtime_ns, size, entity name, its aliases)
_names: dict[str, tuple[int, int, str, tuple[str, ...]]] = {}
NAME_READ = 64 * 1024  # the name is in the frontmatter, at the note's start


_names_lock = threading.Lock()  # `note_named` runs on the event loop and in `EntityStore.names_read`'s thread


def note_named(folder: Path, name: str, skip: Callable[[str], bool], *, by_alias: bool = False) -> str | None:
    with _names_lock:
        return _note_named(folder, name, skip, by_alias)


def _note_named(folder: Path, name: str, skip: Callable[[str], bool], by_alias: bool = False) -> str | None:
    """The file name of the note directly in `folder` whose entity name (its `name` property) is
    `name`, for a note whose file name is not that name's: a person renamed the entity in its
    frontmatter, or renamed its file in Obsidian. Each note is read once per change (size and
    mtime), so a miss costs one directory listing. `skip(file name)`: the capture inbox. File
    names are given (to `skip` too) and returned in NFC, whatever form the disk spells them in
    (an NFD name from macOS: `service.vault.spelling`).

    `by_alias`: when no note has that name, the one note whose `aliases` hold it exactly (a
    name merged into another entity by the consolidation plane is kept as its alias, and a
    person's alias names the note for Obsidian too); none when two notes hold it."""
    found: str | None = None
    aliased: list[str] = []
    seen: set[str] = set()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return None
    for entry in entries:
        nfc = entry.name if entry.name.isascii() else unicodedata.normalize("NFC", entry.name)
        if not nfc.endswith(".md") or nfc.startswith(".") or skip(nfc):
            continue
        try:
            if not entry.is_file():
                continue
            st = entry.stat()
        except OSError:
            continue
        seen.add(entry.path)
        known = _names.get(entry.path)
        if known is None or known[:2] != (st.st_mtime_ns, st.st_size):
            try:
                head = _head(entry.path)
            except OSError:
                continue
            named = parse(_named_part(head), nfc[:-3])  # `name` (else `# title`) and `aliases`
            known = (st.st_mtime_ns, st.st_size, named.name.strip(), tuple(a.strip() for a in named.aliases))
            _names[entry.path] = known
        if known[2] == name and found is None:
            found = nfc
        elif by_alias and name and name in known[3]:
            aliased.append(nfc)
    prefix = os.path.join(folder, "")
    for gone in [p for p in _names if p.startswith(prefix) and p not in seen]:
        del _names[gone]
    if found is None and len(aliased) == 1:
        return aliased[0]
    return found


def _head(path: str) -> str:
    """The start of a note as the index and `VaultFiles.read` decode it, so `name: Zoé` is the
    name the graph lists (`decoding.decode_start`: the encoding is decided from the whole note)."""
    with open(path, "rb") as f:
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
