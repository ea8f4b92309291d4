"""Pieces every search tool shares: folder scoping, cursor keys, running a query off the loop.

`scope` resolves the `folder` argument(s) through the path ACL like any other path (so a
denied or invalid folder fails the same way everywhere) and returns vault-relative folders
for `retrieval.text.folder_clause`. Queries run on a pooled reader in its own thread
(`Database.run_read`), so a long search never blocks the event loop or the writer.

Deleted notes never appear in results: between a file's removal by another program and the
watcher applying it, the index still holds the note. So the hits of each result page (only
those: a few stats, in the reader's thread) are checked on disk before the page is returned;
a missing file is left out, the page is cut again without it (`run_fresh` / `drop_gone`), and
the path is queued for the indexer to drop (`VaultIndexer.forget`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AliasChoices, BaseModel, BeforeValidator, Field

from service.errors import ComputeBudgetExceeded
from service.gcpause import paused
from service.security.visible import unrestricted
from service.tools.context import ToolContext
from service.tools.graph_common import NoteItem
from service.vault.spelling import on_disk as spelled

T = TypeVar("T")

# One vocabulary across the search tools: `folder` scopes, `sort` orders with the words of SORTS.
FolderArg = str | list[str] | None
FOLDER_DESCRIPTION = "Only notes under this folder (or any of these folders); default: the whole vault."
FOLDER_FIELD: Any = Field(default=None, description=FOLDER_DESCRIPTION)
SORTS = {
    "relevance": "relevance (best first)",
    "mtime": "mtime (newest first)",
    "path": "path (A to Z)",
    "title": "title (A to Z)",
}
# Names a published contract used (seed 004's search_notes), accepted beside the shared ones.
LEGACY_SORTS = {"modified_desc": "mtime", "path_asc": "path"}


def sort_field(default: str, *values: str) -> Any:
    """The `sort` field of a search tool that offers `values` (words of SORTS)."""
    return Field(default=default, description="Order: " + ", ".join(SORTS[v] for v in values) + ".")


def _legacy_sort(value: Any) -> Any:
    return LEGACY_SORTS.get(value, value) if isinstance(value, str) else value


# `sort` of a tool whose published contract named the orders `modified_desc` / `path_asc`.
LegacySort = Annotated[Literal["relevance", "mtime", "path"], BeforeValidator(_legacy_sort)]


def folder_field(*published: str) -> Any:
    """`folder`, also accepted under the names a published contract gave it (`path_scope` for
    search_notes, `directory_filter` for rag_search); the schema shows `folder`."""
    return Field(default=None, validation_alias=AliasChoices("folder", *published), description=FOLDER_DESCRIPTION)


class Partial(BaseModel):
    """Search outputs say when the index is still being built, rather than answering as if
    the notes not indexed yet did not exist."""

    partial: bool = Field(
        default=False,
        description="True while the index is still being built (start-up reconcile, or it failed): "
        "notes not indexed yet are missing; index_status shows the progress.",
    )


def partial(ctx: ToolContext) -> bool:
    from service.indexer.runner import indexer_of

    indexer = indexer_of(ctx.vault)
    return indexer is not None and not indexer.ready


CAPPED_EXAMPLES = 5  # paths named in `capped`; the rest counted


class CappedNotes(BaseModel):
    count: int  # the notes in scope searched only up to `indexed_chars`
    paths: list[str]  # up to CAPPED_EXAMPLES of them, in path order
    indexed_chars: int  # [limits] max_indexed_note_chars


class Capped(BaseModel):
    """Text searches say when notes in scope are longer than the index reads (`service.indexer.caps`):
    a word past the cut is not found, and an empty answer is no proof no note holds it."""

    capped: CappedNotes | None = Field(
        default=None,
        description=f"Notes searched only up to `indexed_chars` (`count`; {CAPPED_EXAMPLES} `paths`); null: none.",
    )


def capped(ctx: ToolContext, folders: list[str], can_read: Callable[[str], bool]) -> CappedNotes | None:
    """The notes under `folders` (all: []) the caller may read whose text the index cut, from the
    indexer's file warnings (no query, no file read): None when there are none."""
    from service.indexer.runner import indexer_of

    indexer = indexer_of(ctx.vault)
    if indexer is None:
        return None
    paths = [
        p
        for p in indexer.file_issues.text_capped()
        if (not folders or any(f in ("", p) or p.startswith(f + "/") for f in folders)) and can_read(p)
    ]
    if not paths:
        return None
    return CappedNotes(
        count=len(paths),
        paths=paths[:CAPPED_EXAMPLES],
        indexed_chars=ctx.services.settings.limits.max_indexed_note_chars,
    )


class HitItem(NoteItem):
    mtime: float = Field(description="Modification time (Unix seconds).")


def scope(ctx: ToolContext, folder: FolderArg) -> list[str]:
    """Vault-relative folders to search ('' = everything); unknown folders are `note_not_found`."""
    if folder is None:
        return []
    out: list[str] = []
    for raw in [folder] if isinstance(folder, str) else folder:
        out.append(ctx.folder(raw, field="folder").rel)
    return sorted(set(out))


def query_key(*parts: Any) -> str:
    """A short fingerprint of a query, bound into its cursors (a cursor from another query fails)."""
    raw = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.blake2b(raw.encode(), digest_size=8).hexdigest()


PROGRESS_OPS = 1000  # SQLite steps between two looks at the clock (`budgeted`)


def budgeted(
    ctx: ToolContext, fn: Callable[[sqlite3.Connection], T], at_least_ms: int = 0
) -> Callable[[sqlite3.Connection], T]:
    """`fn` with its statements interrupted once `[search] read_budget_ms` (or `at_least_ms`, a
    call's own longer budget: search_regex's) has passed (SQLite's progress handler, looked at
    every `PROGRESS_OPS` steps, FTS5's reads of its index included), which then raises
    `compute_budget_exceeded`, whatever `fn` made of the interruption. At 100k notes an OR of
    one-letter prefixes ranked every note for well over 10 s on a reader no other call could use
    meanwhile."""
    ms = max(ctx.services.settings.search.read_budget_ms, at_least_ms)

    def work(conn: sqlite3.Connection) -> T:
        end = time.monotonic() + ms / 1000
        late: list[bool] = []

        def look() -> int:
            if time.monotonic() <= end:
                return 0
            late.append(True)
            return 1

        conn.set_progress_handler(look, PROGRESS_OPS)
        try:
            return fn(conn)
        except Exception:
            if late:
                raise ComputeBudgetExceeded(
                    f"the search ran past its time budget ({ms} ms)",
                    details={"limit": "seconds", "read_budget_ms": ms},
                    hint="Narrow the query: longer prefixes (proj* rather than p*), fewer words joined by OR, "
                    "or a folder.",
                ) from None
            raise
        finally:
            conn.set_progress_handler(None, 0)

    return work


async def run(ctx: ToolContext, fn: Callable[[sqlite3.Connection], T]) -> T:
    return await ctx.services.db.run_read(fn)


async def run_search(ctx: ToolContext, fn: Callable[[sqlite3.Connection], T], at_least_ms: int = 0) -> T:
    """`run` for a search's word index reads (ranking, snippets) under `[search] read_budget_ms`
    (`budgeted`); Dataview, Bases and Tasks have budgets of their own and build their images
    inside `run` (seconds at 100k notes), so they do not count against this one."""
    return await ctx.services.db.run_read(budgeted(ctx, fn, at_least_ms))


async def run_ranking(ctx: ToolContext, fn: Callable[[sqlite3.Connection], T], *, words: bool = False) -> T:
    """`run` for a semantic ranking, with the cyclic garbage collector paused (`service.gcpause`):
    a ranking holds a few thousand short-lived rows and hits at once, which young collections
    walked and promoted, and the oldest generation's growth then set off full collections of
    every object of the process (100-240 ms each, in the first calls after a start). `words`: a
    ranking by the word index (a hybrid's text half), under the search budget as `run_search`;
    a ranking by meaning may load the vectors first (seconds at 100k notes) and is not."""

    def paused_fn(conn: sqlite3.Connection) -> T:
        with paused():
            return fn(conn)

    return await ctx.services.db.run_read(budgeted(ctx, paused_fn) if words else paused_fn)


def _missing(root: Path, paths: Iterable[str]) -> list[str]:
    text = str(root)  # a name the disk spells in NFD is there (`service.vault.spelling`)
    return [p for p in paths if not os.path.isfile(os.path.join(text, spelled(text, p)))]


async def missing(ctx: ToolContext, paths: Iterable[str]) -> list[str]:
    """Which of `paths` (vault-relative) are not files on disk now (stat'ed off the event loop)."""
    wanted = sorted(paths)
    return await asyncio.to_thread(_missing, ctx.vault.paths.root, wanted) if wanted else []


def forget_gone(ctx: ToolContext, gone: Iterable[str]) -> None:
    """Have the index drop notes a query found gone from disk (as the watcher will)."""
    from service.indexer.runner import indexer_of

    gone = sorted(gone)
    indexer = indexer_of(ctx.vault)
    if gone and indexer is not None:
        indexer.forget(gone)


async def run_fresh(
    ctx: ToolContext,
    can_read: Readable,
    fn: Callable[[sqlite3.Connection], T],
    page_paths: Callable[[T], list[str]],
    at_least_ms: int = 0,
) -> T:
    """`run_search(ctx, fn, at_least_ms)` for a query that cuts its page with `can_read`: when a
    file of the page is gone from disk, it is marked unreadable and the query runs again (each
    round drops at least one path, so this ends)."""
    root = ctx.vault.paths.root
    gone_all: list[str] = []

    def fresh(conn: sqlite3.Connection) -> T:
        while True:
            out = fn(conn)
            gone = [p for p in _missing(root, page_paths(out)) if p not in gone_all]
            if not gone:
                return out
            gone_all.extend(gone)
            can_read.drop(gone)

    out = await run_search(ctx, fresh, at_least_ms)
    forget_gone(ctx, gone_all)
    return out


R = TypeVar("R")


def _path_of(row: Any) -> str:
    return str(row.path)


async def drop_gone(
    ctx: ToolContext, rows: list[R], offset: int, limit: int, paths: Callable[[R], Iterable[str]] | None = None
) -> list[R]:
    """`rows` (a full ordered result list) without the rows of page [offset, offset+limit) that
    name a file gone from disk, checked until the page holds only files that exist. `paths` says
    which files a row names (default: its `path`)."""
    names: Callable[[R], Iterable[str]] = paths or (lambda r: (_path_of(r),))
    root = ctx.vault.paths.root
    gone_all: set[str] = set()
    while True:
        page = {p for r in rows[offset : offset + limit] for p in names(r)}
        gone = await asyncio.to_thread(_missing, root, sorted(page))
        if not gone:
            break
        gone_all.update(gone)
        rows = [r for r in rows if not any(p in gone_all for p in names(r))]
    forget_gone(ctx, gone_all)
    return rows


def drop_gone_here(
    root: Path, rows: list[R], offset: int, limit: int, paths: Callable[[R], Iterable[str]]
) -> tuple[list[R], set[str]]:
    """`drop_gone` in the calling (worker) thread: the rows without those of page [offset,
    offset+limit) naming a file gone from disk, and the paths found gone (for `forget_gone`)."""
    gone_all: set[str] = set()
    while True:
        gone = _missing(root, sorted({p for r in rows[offset : offset + limit] for p in paths(r)}))
        if not gone:
            return rows, gone_all
        gone_all.update(gone)
        rows = [r for r in rows if not any(p in gone_all for p in paths(r))]


class Readable:
    """`can_read` memoised per call (queries may test a path many times).

    `everything` is True when no rule can deny this caller a visible note in this vault (no
    path rules, no read-narrowed scope): aggregate queries may then skip asking per note."""

    def __init__(self, ctx: ToolContext) -> None:
        self._ctx = ctx
        self._seen: dict[str, bool] = {}
        self.everything = unrestricted(ctx)

    def __call__(self, path: str) -> bool:
        ok = self._seen.get(path)
        if ok is None:
            ok = self._seen[path] = self._ctx.can_read(path)
        return ok

    def drop(self, paths: Iterable[str]) -> None:
        """Treat `paths` as unreadable from now on (their files are gone)."""
        for path in paths:
            self._seen[path] = False
        self.everything = False


def readable(ctx: ToolContext) -> Readable:
    return Readable(ctx)
