"""Moves and deletions seen from Obsidian's workspace: open tabs and recent files follow them.

When a file is renamed or moved, Obsidian rewrites `.obsidian/workspace.json` (and the mobile
app's `.obsidian/workspace-mobile.json`; format: `service.obsidian.workspace`): each entry of
`lastOpenFiles` naming it gets the new path, and each leaf whose `state.state.file` names it (an
editor tab, a backlinks or outline pane following it) shows the new path, its saved `title` the
new name; the `active` leaf keeps its id, so the active file follows with its leaf. A deleted
file leaves `lastOpenFiles`. A move or a delete does the same here.

Obsidian may be running and saving that file at any moment, so it is touched only when something
in it names a moved or deleted path, and never fails the call: a missing or malformed file is
left as it is, and a file saved again between the read and the write is read again and rewritten
from what is there now (left alone if that fails too). Every other key, the order and the
indentation (tabs or spaces, as found) are kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Any

from service.errors import NoteNotFound, PathInvalid, VaultgateError
from service.graph.bookmark_paths import SettingsEdit
from service.markdown.parse import note_title
from service.vault.files import NoteFile
from service.vault.vault import Vault

WORKSPACES = (".obsidian/workspace.json", ".obsidian/workspace-mobile.json")
AREAS = ("main", "left", "right")


def _leaves(node: object) -> list[dict[str, Any]]:
    if not isinstance(node, dict):
        return []
    if node.get("type") == "leaf":
        return [node]
    children = node.get("children")
    return [leaf for child in children for leaf in _leaves(child)] if isinstance(children, list) else []


def repoint(data: dict[str, Any], moves: Mapping[str, str], deleted: Collection[str]) -> int:
    """Rewrite `data` (a parsed workspace file) in place for these moves and deletions; how many
    entries changed."""
    changed = 0
    recent = data.get("lastOpenFiles")
    if isinstance(recent, list):
        kept: list[Any] = []
        targets: set[str] = set()
        for entry in recent:
            if isinstance(entry, str) and entry in deleted:
                changed += 1
                continue
            new = moves.get(entry) if isinstance(entry, str) else None
            if new is not None and new != entry:
                changed += 1
                targets.add(new)
                entry = new
            kept.append(entry)
        if changed:  # a moved file's new path listed before (a stale entry): listed once, newest first
            data["lastOpenFiles"] = [
                e for i, e in enumerate(kept) if not (isinstance(e, str) and e in targets and e in kept[:i])
            ]
    for leaf in (leaf for area in AREAS for leaf in _leaves(data.get(area))):
        state = leaf.get("state")
        inner = state.get("state") if isinstance(state, dict) else None
        if not isinstance(state, dict) or not isinstance(inner, dict):
            continue
        old = inner.get("file")
        new = moves.get(old) if isinstance(old, str) else None
        if old is None or new is None or new == old:
            continue
        inner["file"] = new
        changed += 1
        if isinstance(state.get("title"), str) and state["title"] == note_title(old):
            state["title"] = note_title(new)
    return changed


def _indent(text: str) -> str | int | None:
    """The indentation the file was written with: a tab, or its number of spaces (Obsidian: 2);
    None for a file on one line, which stays on one line (written indented, a compact file nested
    450 deep grew from 6 MB to 626 MB, taking 27 s, on every move of a file it named)."""
    if "\n" not in text.strip():
        return None
    found = re.search(r"\n([ \t]+)\S", text)
    if found is None:
        return 2
    lead = found.group(1)
    return "\t" if lead.startswith("\t") else len(lead)


def rewritten(text: str, moves: Mapping[str, str], deleted: Collection[str]) -> tuple[str, int] | None:
    """(the new text, entries changed) of a workspace file's text, or None: it names none of the
    paths, or it is not a JSON object (left as it is)."""
    try:
        data: Any = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested past the parser's limit
        return None
    if not isinstance(data, dict):
        return None
    try:
        changed = repoint(data, moves, deleted)
    except (TypeError, ValueError, AttributeError):  # a shape no Obsidian writes: left as it is
        return None
    if not changed:
        return None
    new = json.dumps(data, indent=_indent(text), ensure_ascii=False)
    return new + ("\n" if text.endswith("\n") else ""), changed


def _read(vault: Vault, rel: str) -> NoteFile | None:
    try:
        return vault.files.read(vault.paths.resolve(rel, allow_hidden=True))
    except (NoteNotFound, PathInvalid, OSError, ValueError):
        return None


def workspace_edits(vault: Vault, moves: Mapping[str, str], deleted: Collection[str] = ()) -> list[SettingsEdit]:
    """The rewrites of the workspace files these moves and deletions imply (none for a file that
    names none of the paths, is missing or is malformed)."""
    edits: list[SettingsEdit] = []
    for rel in WORKSPACES:
        note = _read(vault, rel)
        found = None if note is None else rewritten(note.content, moves, set(deleted))
        if note is not None and found is not None:
            edits.append(SettingsEdit(rel, note.etag, note.content, *found, lenient=True, encoding=note.encoding))
    return edits


async def write_lenient(vault: Vault, edit: SettingsEdit, moves: Mapping[str, str], deleted: Collection[str]) -> bool:
    """Write a workspace edit; when Obsidian saved the file since it was read, derive the edit
    again from what is there now, once. Never raises: False when the file was left as it is."""
    vp = vault.paths.resolve(edit.path, allow_hidden=True)
    text, etag, encoding = edit.text, edit.etag, edit.encoding
    for _attempt in range(2):
        try:
            await vault.files.write(vp, text, expected_etag=etag, must_exist=True, publish=False, encoding=encoding)
            return True
        except OSError:  # not writable (permissions, a full disk): the call goes on without it
            return False
        except VaultgateError:
            note = _read(vault, edit.path)
            found = None if note is None else rewritten(note.content, moves, set(deleted))
            if note is None or found is None:
                return False
            text, etag, encoding = found[0], note.etag, note.encoding
    return False


async def forget_deleted(vault: Vault, deleted: Collection[str]) -> list[str]:
    """After a delete: drop the deleted files from the workspace files' recent files; the files
    rewritten."""
    done: list[str] = []
    for edit in workspace_edits(vault, {}, deleted):
        if await write_lenient(vault, edit, {}, deleted):
            done.append(edit.path)
    return done
