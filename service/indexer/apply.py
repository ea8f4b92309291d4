"""Incremental apply: file changes (made through vaultgate, or seen by the watcher) into the index.

Guarantees:
- a change batch is applied in one writer transaction, under the indexer's apply lock (so it
  never interleaves with a reconcile); a folder move or delete expands to every file under it;
  a batch of more than `CHUNK` changes is applied in parts of `CHUNK`, in order, one transaction
  each, the lock held across all of them (what a part holds in memory is bounded; a reader may
  see the first parts before the last, as it sees the watcher's changes arrive batch by batch);
- with `only_if_changed`, files the index already has as they are on disk are skipped (the
  watcher re-announcing vaultgate's own writes changes nothing); a deletion of a path the index
  no longer holds (the watcher reporting a move or delete of ours the index followed already)
  changes nothing and is not returned;
- a note the batch removes and finds again at another path with the same name and text (a move,
  ours or another program's) keeps its rows, given the new path (`relocate.py`), instead of being
  deleted, parsed and stored again; a file a move of ours brings where the index already holds it
  with that text (the watcher saw the move first) is not stored again;
- links are re-resolved only when the set of files changed (created, moved, deleted), and the
  link-resolution path set is updated by the files that came and went, not rebuilt;
- from `bulk_threshold` notes at once (a hub note's rename rewrites thousands) the trigram index
  is deferred and rebuilt once afterwards instead of row by row;
- the result lists the changes that really altered the index, with origin "external";
- one file never fails the batch: a name that is not UTF-8 is left out before anything touches
  it, a special file is never opened, a note that cannot be read, parsed or stored is left out;
  each is recorded (`issues.py`) and the others are applied.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from service import budget
from service.graph.linkpath import PathSet
from service.indexer import relocate, rows
from service.indexer.bulk import settle_word_merge
from service.indexer.issues import FileIssue, issue
from service.indexer.known import KnownFiles
from service.indexer.scan import read_present
from service.indexer.state import IndexerState
from service.indexer.status import Token
from service.vault.decoding import is_utf8_name
from service.vault.events import FileChange
from service.vault.paths import VaultPaths

# Changes per transaction in a large batch: a hub note's rename re-announces every note it
# rewrote (9,281 at 100k notes), and one part's files are read, parsed and held at once (~4x their
# text in rows); in parts of this many, what is held stays ~tens of MB whatever the batch.
CHUNK = 500
# Runs a write in its transaction (an index update made during a load that defers the word index:
# `words.WordCatchUp.around`).
Wrap = Callable[[Any, Callable[[Any], Token | None]], Token | None]


async def apply_changes(
    ix: IndexerState,
    changes: Sequence[FileChange],
    *,
    only_if_changed: bool,
    lock_held: bool,
    bulk_threshold: int,
    wrap: Wrap | None = None,
) -> list[FileChange]:
    """Apply file changes; with `only_if_changed`, skip files the index already has as they are.
    `lock_held`: the caller (reconcile) holds the apply lock already; `wrap` runs each write.
    Read within the vault's app's `[limits]` (its frontmatter, its index cap), whoever calls.

    Returns the changes that actually altered the index."""
    with budget.within(budget.outside(ix.vault.limits)):
        return await _apply_changes(ix, changes, only_if_changed, lock_held, bulk_threshold, wrap)


async def _apply_changes(
    ix: IndexerState,
    changes: Sequence[FileChange],
    only_if_changed: bool,
    lock_held: bool,
    bulk_threshold: int,
    wrap: Wrap | None,
) -> list[FileChange]:
    if len(changes) <= CHUNK:
        return await _apply(
            ix, changes, only_if_changed=only_if_changed, lock_held=lock_held, bulk_threshold=bulk_threshold, wrap=wrap
        )
    bulk = len(changes) >= bulk_threshold  # every part defers the trigram index, rebuilt once after the last
    deferred: list[bool] = []  # a part that stores notes defers it: a move's parts may store none
    effective: list[FileChange] = []
    async with contextlib.nullcontext() if lock_held else ix._apply_lock:
        try:
            for at in range(0, len(changes), CHUNK):
                part = changes[at : at + CHUNK]
                effective += await _apply(
                    ix,
                    part,
                    only_if_changed=only_if_changed,
                    lock_held=True,
                    bulk_threshold=1 if bulk else bulk_threshold,
                    part=True,
                    wrap=wrap,
                    deferred=deferred,
                )
        finally:
            if deferred:
                ix._rebuild_trigram_later()
    return effective


async def _apply(
    ix: IndexerState,
    changes: Sequence[FileChange],
    *,
    only_if_changed: bool,
    lock_held: bool,
    bulk_threshold: int,
    part: bool = False,
    wrap: Wrap | None = None,
    deferred: list[bool] | None = None,
) -> list[FileChange]:
    """`apply_changes` of one part: one read of its files, one parse, one writer transaction.
    `part`: one part of a large batch: the caller asks for the trigram rebuild once after its last
    part, and the held row counts are voided rather than carried over each part (one full count
    is cheaper: `status.KEPT_MAX_PATHS`); `deferred` gets an entry when it deferred the trigram
    index (a part of moved notes that keep their rows stores none, and defers nothing)."""
    issues: list[FileIssue] = []
    changes = _utf8_only(changes, issues)
    async with contextlib.nullcontext() if lock_held else ix._apply_lock:
        upserts: list[str] = []
        removed: list[str] = []
        added: list[str] = []
        effective: list[FileChange] = []
        structural = False
        moved_to: set[str] = set()  # where "moved" changes put files (not written by the batch)
        written: set[str] = set()
        for change in changes:
            new, old = expand(change, ix.vault.paths, ix._files)
            if change.kind in ("deleted", "moved"):
                removed += old
                structural = structural or change.kind == "moved"  # a deletion: when it removes a file held
            if change.kind != "deleted":
                upserts += new
                (moved_to if change.kind == "moved" else written).update(new)
                structural = structural or change.kind in ("created", "moved")
        there = await _indexed_already(ix, moved_to - written)
        known: dict[str, tuple[float, int]] = {}
        if only_if_changed and upserts:
            marks = ",".join("?" * len(upserts))
            for r in await ix.db.fetchall(
                f"SELECT path, mtime, size FROM notes WHERE vault_id = ? AND path IN ({marks})",
                (ix.vault.id, *upserts),
            ):
                known[str(r[0])] = (float(r[1]), int(r[2]))
        upserts = list(dict.fromkeys(upserts))  # a batch may name a file twice (moved, then edited)
        root = ix.vault.paths.root
        # One thread hop reads every file of the change (a move re-announces every note that
        # links to the moved one: thousands of hops, one per file, took seconds).
        present, read, unread = await asyncio.to_thread(read_present, root, upserts)
        issues += unread
        items: list[rows.NoteInput] = []
        unchanged: list[str] = []  # skipped: what was recorded when they were indexed still holds
        for rel in upserts:
            if rel not in present:
                removed.append(rel)
                continue
            if rel not in ix._files:
                added.append(rel)
                structural = True
            item = read.get(rel)
            if item is None:
                continue
            if only_if_changed and known.get(rel) == (item.mtime, item.size) or there.get(rel) == item.etag:
                unchanged.append(rel)
                continue
            items.append(item)
        # A file reached only through a link is not the vault's (a folder swapped for a symlink).
        removed = [r for r in removed if not ix.vault.paths.on_disk(r).is_file() or ix.vault.paths.has_link(r)]
        announced = removed  # a file left out of the index (its issue) may go too
        # A path the index no longer holds (the watcher's report of a move or delete of ours that
        # the index followed already) removes nothing: no row to delete, no link to re-resolve,
        # no deletion to tell. One a queued round of our own writes will read is kept: that round
        # finds it gone, and only this batch tells the bus.
        removed = [r for r in dict.fromkeys(removed) if r in ix._files or ix._ours(r)]
        gone = [rel for rel in removed if rel in ix._files]
        structural = structural or bool(removed)
        new_files = set(added)
        moved = await _relocations(ix, gone, [i for i in items if i.path in new_files], upserts)
        olds = {r.old for r in moved}  # their rows move with them (`relocate.py`): not parsed, deleted or stored again
        if moved:
            news = {r.item.path for r in moved}
            items = [i for i in items if i.path not in news]
        ix._files.add(added)
        ix._files.discard(gone)
        if ix._paths is not None and (added or gone):
            ix._paths = ix._paths.changed(added=added, removed=gone)  # incremental: no rebuild per new note
        ix._issues.clear([*upserts, *announced], but_indexed=unchanged)
        ix._issues.record(issues)
        if not items and not removed and not added:  # a new .base or attachment (no note row): links resolve
            return []
        if ix._paths is None:
            # Built off the event loop: ~20 ms for 10k files.
            ix._paths = await asyncio.to_thread(partial(PathSet, ix._files.ordered(), ordered=True))
        paths = ix._paths
        prepared, failed = await asyncio.to_thread(rows.prepare_each, items, paths, ix.task_format)
        stored: list[FileIssue] = []

        # Many notes at once (a hub note's rename rewrites thousands): the trigram index is
        # rebuilt once afterwards instead of row by row (over half of such an update).
        bulk = len(prepared) >= bulk_threshold
        vault_id = ix.vault.id

        relocated = [r.item.path for r in moved]
        deleting = [r for r in removed if r not in olds]
        touched = [*removed, *(p.path for p in prepared), *relocated]
        counts, unresolved = ix._counts, ix._unresolved

        def write(conn: Any) -> Token | None:
            before = None if part else counts.before(conn, touched)  # None: the counts are voided
            if bulk:
                conn.execute("UPDATE fts_control SET trigram_deferred = 1")
                if deferred is not None:
                    deferred.append(True)
            for rel in deleting:
                rows.delete_note(conn, vault_id, rel)
            relocate.store(conn, vault_id, moved, paths, unresolved)
            settle_word_merge(conn)  # a savepoint each note, a segment of the word index each
            stored.extend(rows.upsert_each(conn, vault_id, prepared))
            unresolved.add(link[0] for p in prepared for link in p.links if link[1] is None)
            if structural:
                rows.resolve_links(
                    conn,
                    vault_id,
                    paths,
                    only_unresolved=True,
                    stale=removed + [p.path for p in prepared] + relocated,
                    added=added,
                    unresolved=unresolved,
                )
            return counts.after(conn, before, touched)  # the row counts carried over this write

        try:
            wrapped = write if wrap is None else lambda conn: wrap(conn, write)
            counts.committed(await ix.db.run_write(wrapped))
        except BaseException:
            ix._void_kept()  # rolled back (or not known to be committed): what is held may be ahead
            raise
        ix._issues.record([*failed, *stored])
        refused = {i.path for i in stored}
        if bulk and not part:
            ix._rebuild_trigram_later()
        ix.last_change = time.time()
        for prep in prepared:
            if prep.path not in refused:
                effective.append(FileChange("modified", prep.path, origin="external"))
        effective += [FileChange("modified", rel, origin="external") for rel in relocated]
        for rel in removed:
            effective.append(FileChange("deleted", rel, origin="external"))
    await ix._bump([c.path for c in effective])  # the rows this batch changed
    return effective


async def _indexed_already(ix: IndexerState, arrived: set[str]) -> dict[str, str]:
    """Path -> etag of the files moved into `arrived` that the index holds already: the watcher,
    seeing a move before the move's own batch (announced once every file moved), applied it as
    deletions and creations (`relocate.py` pairs them); the same text there is not stored again."""
    known = [rel for rel in arrived if rel in ix._files]
    return {path: etag for _, path, etag in await relocate.indexed(ix.db, ix.vault.id, known)} if known else {}


async def _relocations(
    ix: IndexerState, gone: list[str], new: list[rows.NoteInput], upserts: list[str]
) -> list[relocate.Relocation]:
    """The notes of `new` (files the index did not hold) that are a note of `gone` (indexed, no
    longer on disk) moved: same base name and content (`relocate.pair`)."""
    if not gone or not new:
        return []
    again = set(upserts)  # a path written again in the same batch keeps its own row
    olds = [rel for rel in gone if rel not in again]
    found = await relocate.indexed(ix.db, ix.vault.id, [*olds, *(i.path for i in new)])
    taken = {path for _, path, _ in found}  # a row already at a new path: that note is stored as before
    held = ix._issues.paths("capped") | ix._issues.paths("encoding")
    leaving = set(olds)
    return relocate.pair([f for f in found if f[1] in leaving], [i for i in new if i.path not in taken], held)


def _utf8_only(changes: Sequence[FileChange], issues: list[FileIssue]) -> list[FileChange]:
    """The changes whose paths are valid UTF-8; the others go to `issues` (SQLite and JSON refuse
    the lone surrogates such a name decodes to, and one of them failed the whole batch)."""
    kept: list[FileChange] = []
    for change in changes:
        bad = [p for p in (change.path, change.old_path) if p is not None and not is_utf8_name(p)]
        if bad:
            issues.extend(issue(p, "name_not_utf8") for p in bad)
        else:
            kept.append(change)
    return kept


def expand(change: FileChange, vault_paths: VaultPaths, files: KnownFiles) -> tuple[list[str], list[str]]:
    """(new paths, old paths) of a change; a folder move expands to every file under it.
    `files` is every file the index knows (what was under a folder: a range of its sorted paths)."""
    target = vault_paths.on_disk(change.path)
    if change.kind == "moved" and change.old_path is not None and target.is_dir():
        new = [
            vault_paths.from_abs(p) or "" for p in Path(target).rglob("*") if p.is_file() and not p.name.startswith(".")
        ]
        new = [n for n in new if n and is_utf8_name(n)]
        prefix_new, prefix_old = change.path.rstrip("/") + "/", change.old_path.rstrip("/") + "/"
        old = [prefix_old + n[len(prefix_new) :] for n in new]
        listed = set(old)
        old += [f for f in files.under(prefix_old) if f not in listed]
        return new, old
    if change.kind == "deleted" and change.path not in files:
        # A folder deleted or renamed away (the watcher sees only the folder itself).
        return [], [change.path, *files.under(change.path)]
    return [change.path], [change.old_path] if change.old_path else ([change.path] if change.kind == "deleted" else [])
