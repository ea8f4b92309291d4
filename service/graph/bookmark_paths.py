"""Moves seen from the Bookmarks plugin: bookmarks of moved files and folders follow them.

Obsidian repoints a bookmark when the file or folder it names is renamed or moved; a move plan
does the same to `.obsidian/bookmarks.json` (format: `service.obsidian.bookmarks`): a `file`
bookmark whose path moved gets the new path (its heading or block subpath kept), a `folder`
bookmark of a moved folder (or of a folder inside it) the new folder path. Nothing else in the
file changes: other items, unknown keys and the order stay; the file is written in the layout
Obsidian writes, in the encoding it was read in. A missing or malformed file is left alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from service.errors import NoteNotFound, PathInvalid
from service.obsidian import bookmarks as bm
from service.vault.decoding import UTF8
from service.vault.vault import Vault

BOOKMARKS = ".obsidian/bookmarks.json"


@dataclass(frozen=True, slots=True)
class SettingsEdit:
    path: str  # a settings file under .obsidian/
    etag: str
    original: str
    text: str
    changed: int  # how many items were repointed
    lenient: bool = False  # Obsidian may save it any time: never fails the move (`workspace_paths`)
    encoding: str = UTF8  # the file's as read, which its write keeps (`decoding.encode_edit`)


def bookmarks_edit(
    vault: Vault, moves: Mapping[str, str], folder: tuple[str, str] | None = None
) -> SettingsEdit | None:
    """The rewrite of bookmarks.json that `moves` and the folder move (old folder, new folder),
    if any, imply, or None. The folder pair is given, not derived from file moves: an empty
    folder moves too."""
    try:
        note = vault.files.read(vault.paths.resolve(BOOKMARKS, allow_hidden=True))
        data: Any = json.loads(note.content)
    except (NoteNotFound, PathInvalid, OSError, ValueError, RecursionError):  # RecursionError: nested too deep
        return None
    if not isinstance(data, dict):
        return None
    pair = folder
    changed = 0
    for loc in bm.walk(bm.items_of(data), lambda _: True):
        item, path = loc.item, loc.item.get("path")
        if not isinstance(path, str):
            continue
        new: str | None = None
        if item.get("type") == "file":
            new = moves.get(path)
        elif item.get("type") == "folder" and pair is not None:
            src, dst = pair
            new = dst + path[len(src) :] if path == src or path.startswith(src + "/") else None
        if new is not None and new != path:
            item["path"] = new
            changed += 1
    if not changed:
        return None
    text = bm.dumps(data, note.content)
    return SettingsEdit(BOOKMARKS, note.etag, note.content, text, changed, encoding=note.encoding)
