"""Pieces every search tool shares: folder scoping, cursor keys, running a query off the loop.

`scope` resolves the `folder` argument(s) through the path ACL like any other path (so a
denied or invalid folder fails the same way everywhere) and returns vault-relative folders
for `retrieval.text.folder_clause`. Queries run on a pooled reader in its own thread
(`Database.run_read`), so a long search never blocks the event loop or the writer.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import Field

from service.errors import NoteNotFound
from service.tools.context import ToolContext
from service.tools.graph_common import NoteItem

T = TypeVar("T")

FolderArg = str | list[str] | None
FOLDER_FIELD: Any = Field(
    default=None,
    description="Only notes under this folder (or any of these folders); default: the whole vault.",
)


class HitItem(NoteItem):
    mtime: float = Field(description="Modification time (Unix seconds).")


def scope(ctx: ToolContext, folder: FolderArg) -> list[str]:
    """Vault-relative folders to search ('' = everything); unknown folders are `note_not_found`."""
    if folder is None:
        return []
    out: list[str] = []
    for raw in [folder] if isinstance(folder, str) else folder:
        vp = ctx.resolve(raw, "read", allow_root=True)
        if not vp.abs.is_dir():
            raise NoteNotFound(f"no folder at {vp.rel!r}", details={"path": vp.rel, "field": "folder"})
        out.append(vp.rel)
    return sorted(set(out))


def query_key(*parts: Any) -> str:
    """A short fingerprint of a query, bound into its cursors (a cursor from another query fails)."""
    raw = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.blake2b(raw.encode(), digest_size=8).hexdigest()


async def run(ctx: ToolContext, fn: Callable[[sqlite3.Connection], T]) -> T:
    return await ctx.services.db.run_read(fn)


class Readable:
    """`can_read` memoised per call (queries may test a path many times).

    `everything` is True when no rule can deny this caller a visible note in this vault (no
    path rules, no read-narrowed scope): aggregate queries may then skip asking per note."""

    def __init__(self, ctx: ToolContext) -> None:
        self._ctx = ctx
        self._seen: dict[str, bool] = {}
        self.everything = _unrestricted(ctx)

    def __call__(self, path: str) -> bool:
        ok = self._seen.get(path)
        if ok is None:
            ok = self._seen[path] = self._ctx.can_read(path)
        return ok


def _unrestricted(ctx: ToolContext) -> bool:
    from service.security.scopes import narrowing

    acl_of = getattr(ctx.services.guard, "acl_of", None)
    if acl_of is None:
        return False
    return not acl_of(ctx.vault.id).restricted and narrowing(ctx.call.principal.scopes, "read:vault") is None


def readable(ctx: ToolContext) -> Readable:
    return Readable(ctx)
