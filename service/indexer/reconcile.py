"""Reconcile: bring the index in line with the vault folder (at start-up, and on a reindex).

Guarantees:
- the vault is compared with the index by mtime+size, then by content hash, so a warm restart
  re-parses nothing that did not change; notes gone from disk are removed; a note moved while the
  server was down (gone from its path, a new file of its name and text elsewhere) keeps its rows
  and takes the new path (`relocate.py`), not parsed again;
- from `bulk_threshold` changed notes on, the load runs in bulk-load mode (`bulk.py`) and parses
  in worker processes ahead of the single writer; a failed or cancelled load gets the query
  indexes back at once; a cold load's query indexes, then the trigram index, are built, and the
  load's WAL checkpointed, in the background once the index is ready (answers are the same
  meanwhile, only slower: `bulk.QueryIndexes`);
- writes go through the single writer in batched transactions; `progress` and the indexer's
  `generation` move after every batch;
- writes made through vaultgate while the first index is built are applied between its batches
  (`early.py`), and those not applied yet before `ready`;
- one file never fails the load: a name that is not UTF-8, a special file, a note that cannot be
  read, parsed or stored is left out and recorded (`issues.py`), and the others are indexed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from service import budget, malloc
from service.activity import GiveWay
from service.graph.address import NoteName
from service.graph.linkpath import PathSet
from service.graph.queries import alias_texts
from service.indexer import look, parsepool, relocate, rows
from service.indexer.bulk import bulk_mode, checkpoint_after_load, restore_indexes, settle_word_merge
from service.indexer.canvas_facts import is_canvas
from service.indexer.caps import kept_text, max_chars
from service.indexer.early import EarlyWrites
from service.indexer.issues import FileIssue, issue
from service.indexer.reading import read_note_file
from service.indexer.scan import scan_with_paths
from service.indexer.state import IndexerState
from service.indexer.status import Counts, Token
from service.indexer.task_format import follow_settings
from service.indexer.unresolved import UnresolvedTargets
from service.indexer.words import WordCatchUp

T = TypeVar("T")
COMPARE_PAGE = 1024  # index rows read between two calls of the comparison's `pause`


async def reconcile_vault(
    ix: IndexerState,
    *,
    full: bool,
    progress: Callable[[int, int], Any] | None,
    batch_size: int,
    bulk_threshold: int,
    give_way: bool = False,
) -> dict[str, int]:
    """Bring the index in line with the vault; `full` re-parses every note; `give_way`: the scan
    and the comparison wait while calls run, within a budget (`service.activity.GiveWay`). While
    the index is not ready yet (a first start, a failed one's reindex), writes through vaultgate
    are applied between its batches (`early.py`). Read within the vault's app's `[limits]`."""
    with budget.within(budget.outside(ix.vault.limits)):
        return await _reconcile(ix, full, progress, batch_size, bulk_threshold, give_way)


async def _reconcile(
    ix: IndexerState,
    full: bool,
    progress: Callable[[int, int], Any] | None,
    batch_size: int,
    bulk_threshold: int,
    give_way: bool,
) -> dict[str, int]:
    early: EarlyWrites | None
    async with ix._apply_lock, ix._early.taking(ix.state != "ready") as early:
        look.forget(ix)  # rows change here other than by a reading of their file: a look compares all
        ix.state = "reconciling" if ix.state != "ready" else "ready"
        # Indexes a previous process deferred and did not live to build (a no-op read otherwise).
        if await ix.db.fetchone("SELECT 1 FROM deferred_indexes LIMIT 1"):
            await ix.db.run_write(restore_indexes)
        await follow_settings(ix)  # the Tasks settings' task format changed: its tasks' notes are read again
        # The link-resolution index is built in the worker too: ~20 ms for 10k files that
        # would otherwise block the event loop while the first requests after a start arrive.
        found: list[FileIssue] = []
        # Python in a worker thread takes turns with the calls: at a start, while one runs, the
        # scan and the comparison wait for it, within a budget (a warm restart's first calls
        # arrive now). Not for a reconcile a call waits for (`reindex`): it would wait for itself.
        pause = GiveWay(ix.activity) if give_way and ix.activity is not None else None
        disk, files, paths = await asyncio.to_thread(scan_with_paths, ix.vault.paths, found, pause)
        ix._issues.rescanned(found, disk)
        ix._files = files
        ix._paths = paths
        # Compared on a pooled reader, off the event loop (100k notes: ~0.3 s of Python that
        # every call arriving right after a start would otherwise wait behind).
        changed, removed, added, etags = await ix.db.run_scan(
            partial(compare, vault_id=ix.vault.id, disk=disk, full=full, pause=pause)
        )
        moved = await relocate.moved_while_down(ix, removed, added, paths) if not full else []
        if moved:  # notes moved while the server was down keep their rows: not parsed again
            news = {r.item.path for r in moved}
            changed = [p for p in changed if p not in news]
        ix.total, ix.done, ix.backlog = len(changed), 0, len(changed)
        indexed = touched = 0
        deferred = len(changed) >= bulk_threshold
        words: WordCatchUp | None = None  # the word index deferred: built while the writer waits
        if deferred:
            ix.trigram_ready = False
            await ix.trigram.cancel()
            if await ix.db.run_write(partial(bulk_mode, on=True)):
                words = WordCatchUp()
        # Every note a cold load stores is new: `rows.upsert_batch` need not look any up.
        cold = (
            deferred
            and not etags
            and await ix.db.fetchone("SELECT 1 FROM notes WHERE vault_id = ? LIMIT 1", (ix.vault.id,)) is None
        )
        if early is not None and cold:  # addresses resolved meanwhile: the notes on disk (`names.py`)
            await ix.names.seed(await asyncio.to_thread(seed_names, files.ordered()))
        batches = [changed[i : i + batch_size] for i in range(0, len(changed), batch_size)]
        in_processes = len(changed) >= max(bulk_threshold, parsepool.MIN_NOTES)
        workers = ix.parse_workers if in_processes else 0
        parser = parsepool.Parser(ix.vault.paths.root, paths, workers, ix.task_format, ix.vault.limits)
        pending: list[asyncio.Future[parsepool.Batch]] = []
        try:
            # Parse ahead (batch N+1.. in workers) while the writer stores batch N.
            ahead = parser.workers if parser.in_processes else 0
            pending += [
                asyncio.ensure_future(parser.batch(b, {p: etags[p] for p in b if p in etags}))
                for b in batches[: ahead + 1]
            ]
            stale_below = 0  # batches parsed before an early write changed the files: resolved again

            async def serve(n: int) -> None:  # writes through vaultgate made meanwhile (`early.py`)
                nonlocal stale_below
                assert early is not None
                files = ix._paths
                await early.serve(ix, bulk_threshold=bulk_threshold, words=words)
                if ix._paths is not files and ix._paths is not None:
                    parser.paths, stale_below = ix._paths, n + ahead + 1

            for n, batch in enumerate(batches):
                head = pending.pop(0)
                while not head.done():  # the writer would wait: apply writes made meanwhile, index words
                    if early is not None and early.waiting:
                        await serve(n)
                        continue
                    last = await ix.db.run_write(words.step) if words is not None else None
                    if last is not None and words is not None:
                        words.advance(last)
                    elif early is not None:
                        await early.until(head)
                    else:
                        break
                if early is not None and early.waiting:  # parsed ahead of the writer: after a batch at most
                    await serve(n)
                paths_of, (prepared, touch, issues) = batch, await head
                if early is not None:  # the notes written early are in already, maybe newer than parsed
                    paths_of, (prepared, touch, issues) = early.leave_out(batch, (prepared, touch, issues))
                    if n < stale_below:
                        prepared = await asyncio.to_thread(rows.with_links_resolved, prepared, parser.paths)
                if n + ahead + 1 < len(batches):
                    nxt = batches[n + ahead + 1]
                    pending.append(asyncio.ensure_future(parser.batch(nxt, {p: etags[p] for p in nxt if p in etags})))
                written = partial(ix._write_batch, prepared=prepared, touch=touch, issues=issues)
                written = partial(written, bulk=deferred, new=cold)
                ix._counts.committed(await ix.db.run_write(written))
                ix._issues.clear(paths_of, but_indexed=[path for path, _, _ in touch])  # touched: as indexed
                ix._issues.record(issues)
                ix.names.stored(aliased(prepared, issues) if ix.names.with_files else [], paths_of)
                indexed += len(prepared)
                touched += len(touch)
                del prepared, touch, issues
                if deferred:  # a bulk load: hand the batch's freed memory back (service/heap.py)
                    await asyncio.to_thread(malloc.trim)  # up to ~30 ms: never on the event loop
                ix.done += len(batch)
                ix.backlog = len(changed) - ix.done
                if progress is not None:
                    await progress(ix.done, ix.total)
                await ix._bump(())  # the batch's names: `stored` above
        except BaseException:
            ix._void_kept()  # rolled back (or not known to be committed): what is held may be ahead
            if deferred:  # failed or cancelled: queries get their indexes back at once
                with contextlib.suppress(Exception):
                    await asyncio.shield(ix.db.run_write(partial(bulk_mode, on=False)))
            raise
        finally:
            for task in pending:
                task.cancel()
            await parser.close()
        if deferred:
            upto = words.upto if words else None
            end = partial(bulk_mode, on=False, words_from=upto, checkpoint_later=True, queries_later=True)
            await ix.db.run_write(end)
        try:
            now = ix._paths or paths  # with the files early writes added or removed
            if early is not None and early.paths:  # written again since the scan: as the early write left it
                removed = [p for p in removed if p not in early.paths]
            done = partial(finish, vault_id=ix.vault.id, removed=removed, paths=now, added=added, ix=ix)
            ix._counts.committed(await ix.db.run_write(done))
        except BaseException:
            ix._void_kept()
            raise
        # Writes made through vaultgate while the index was built and not applied yet (no await
        # between the last check and `ready`: later ones are applied as usual, after the lock).
        if early is not None:
            await early.drain(ix, bulk_threshold=bulk_threshold, lock_held=True)
        ix.last_sync = time.time()
        ix.state = "ready"
        await ix._bump()
        ix._background(name_capped(ix), "naming capped notes")
        if deferred:
            ix._background(checkpoint_after_load(ix.db), "checkpoint")
            if await ix.db.fetchone("SELECT 1 FROM deferred_indexes LIMIT 1"):
                ix.query_indexes.start()  # a cold load's query indexes: every answer is the same without
        pending_trigram = await ix.db.fetchone("SELECT trigram_deferred FROM fts_control WHERE id = 1")
        rebuilding = ix.trigram.running
        if pending_trigram and pending_trigram[0] and (deferred or not rebuilding):
            # Every query is complete without the trigram index (search_regex scans instead of
            # prefiltering while it is deferred), so it is rebuilt after the index is ready —
            # after the query indexes, which it would hold up for its ~25 s in the writer;
            # this also finishes a rebuild a previous process did not live to complete. A rebuild
            # under way already covers a reconcile that deferred nothing (the rescan after the
            # watcher's start, right after a cold load).
            ix.trigram_ready = False
            ix.query_indexes.then(ix._rebuild_trigram_later)
        # Merged once calls pause, when batches left it in many segments (after a cold load's
        # query indexes too: the merge would take the writer between two of them).
        ix.query_indexes.then(ix.word_merge.ask)
        gone, kept = len(removed) - len(moved), len(moved)  # a note moved meanwhile is not gone
        return {
            "indexed": indexed,
            "unchanged_content": touched,
            "removed": gone,
            "relocated": kept,
            "scanned": len(disk),
        }


async def name_capped(ix: IndexerState) -> None:
    """Record as `capped` the notes the index holds cut (`caps.kept_text`) that this process did
    not read: a warm restart reads no unchanged note again, so the file warnings (index_status,
    the searches' `capped`) did not know them. The notes of more bytes than the limit's characters
    (a superset) are read one by one in a worker thread; one is recorded only when its text is past
    the limit and its index row, looked up again under the apply lock (no index update between the
    look and the record), is still of the bytes read (its etag): a note changed since is the
    watcher's to index again. A note found within the limit (multibyte text) is remembered by its
    etag and not read again while its row keeps it."""
    cap = max_chars()
    known = ix._issues.paths("capped")
    sql = "SELECT path, etag FROM notes WHERE vault_id = ? AND size > ?"
    found = await ix.db.run_scan(lambda conn: conn.execute(sql, (ix.vault.id, cap)).fetchall())  # every note's row
    big = {str(path): str(etag) for path, etag in found}
    ix._read_whole = {p: v for p, v in ix._read_whole.items() if p in big}  # of notes still long
    for path, etag in big.items():
        if path in known or is_canvas(path) or ix._read_whole.get(path) == (etag, cap):
            continue
        ix._read_whole[path] = (etag, cap)  # claimed: a run beside this one does not read it too
        item = await asyncio.to_thread(read_note_file, ix.vault.paths.root, path)
        if item is None or item.etag != etag or item.whole_chars > cap:
            ix._read_whole.pop(path, None)
        if item is None or item.etag != etag or item.whole_chars <= cap:
            continue
        detail = f"text {item.whole_chars} chars > {cap}: the first {len(kept_text(item.text, cap))} indexed"
        del item
        async with ix._apply_lock:
            row = await ix.db.fetchone("SELECT etag FROM notes WHERE vault_id = ? AND path = ?", (ix.vault.id, path))
            if row is not None and row[0] == etag and path not in ix._issues.paths("capped"):
                ix._issues.record([issue(path, "capped", detail)])


def seed_names(files: list[str]) -> list[NoteName]:
    """The names of every note on disk (sorted `files`), before the load stores any (no alias)."""
    return [NoteName(path) for path in files if path.lower().endswith(".md")]


def aliased(prepared: list[rows.Prepared], failed: list[FileIssue]) -> list[NoteName]:
    """The names of the stored notes that have an alias, as their rows hold them (`rows.prepare`
    puts the aliases' JSON fourth of the notes columns); not of notes left out (`failed`)."""
    left = {i.path for i in failed}
    found = [p for p in prepared if p.note[3] != "[]" and p.path.lower().endswith(".md") and p.path not in left]
    return [NoteName(p.path, tuple(alias_texts(p.note[3]))) for p in found]


async def drift(ix: IndexerState) -> tuple[list[str], float]:
    """The vault paths whose file differs from what the index holds, read by the file watcher when
    it polls (`watch.py`): notes and canvases new, changed (mtime or size) or gone, and other
    files (attachments links resolve to) new or gone; and the CPU seconds the look took (its
    threads' own: not the time it gave way to calls, nor theirs). Reads only: the watcher applies
    them as it applies the OS's events. The scan and the comparison give way to calls, as a
    start's do; only the files the view kept since the previous look says may differ are
    compared with the index (`look.py`). Nothing before the index is ready: the first reading
    reads every file anyway, and compared with a half-built index every note would differ; a
    reindex under way ends first."""
    if ix.state != "ready":
        return [], 0.0
    async with ix._apply_lock:  # a reconcile holds it throughout: the look compares with its result
        pass
    return await look.look(ix, GiveWay(ix.activity) if ix.activity is not None else None)


def compare(
    conn: Any,
    *,
    vault_id: str,
    disk: dict[str, tuple[float, int]],
    full: bool,
    pause: Callable[[], None] | None = None,
) -> tuple[list[str], list[str], list[str], dict[str, str]]:
    """The vault on disk (`disk`: path → (mtime, size)) against the index: (notes to read — every
    note when `full`, and each whose content hash is '' —, notes gone from disk, notes new on
    disk, the content hash the index holds of each note to read). New notes are none on a cold
    start: every link is resolved against the complete file set then already. `pause` is called
    between two pages of the index's rows."""
    known: dict[str, tuple[float, int, str]] = {}
    cursor = conn.execute("SELECT path, mtime, size, etag FROM notes WHERE vault_id = ?", (vault_id,))
    while page := cursor.fetchmany(COMPARE_PAGE):
        for path, mtime, size, etag in page:
            known[str(path)] = (mtime, size, etag)
        if pause is not None:
            pause()
    # A row whose content hash is '' is read again though its file is unchanged: a migration
    # that changes what a note's rows hold (0023: property links) clears the hash, so the next
    # reconcile parses every note anew, and the row keeps its real mtime meanwhile.
    changed = [p for p, st in disk.items() if full or p not in known or known[p][:2] != st or not known[p][2]]
    removed = [p for p in known if p not in disk]
    added = [p for p in disk if p not in known] if known else []
    etags = {p: known[p][2] for p in changed if p in known} if not full else {}
    return changed, removed, added, etags


def write_batch(
    conn: Any,
    vault_id: str,
    prepared: list[rows.Prepared],
    touch: list[tuple[str, float, int]],
    issues: list[FileIssue] | None = None,
    *,
    bulk: bool = False,
    new: bool = False,
    kept: tuple[Counts, UnresolvedTargets] | None = None,
) -> Token | None:
    """Store one parsed batch; notes whose content did not change only get their new mtime/size.
    A note whose rows SQLite refuses is rolled back alone and added to `issues`. `bulk`: a bulk
    load's batch, each table's rows in one statement (`rows.upsert_batch`); `new`: of notes the
    index does not hold (a hint, see there). `kept`: the indexer's row counts and unresolved
    targets, carried over the batch (the token for `Counts.committed`), or over a bulk load's
    batch voided."""
    counts, unresolved = kept if kept is not None else (None, None)
    if bulk and counts is not None and unresolved is not None:
        counts.void()
        unresolved.void()
        counts = unresolved = None
    names = [p.path for p in prepared]
    before = counts.before(conn, names) if counts is not None else None
    if not bulk:
        settle_word_merge(conn)  # note by note: a savepoint each, a segment of the word index each
    failed = (
        rows.upsert_batch(conn, vault_id, prepared, new=new) if bulk else rows.upsert_each(conn, vault_id, prepared)
    )
    if issues is not None:
        issues.extend(failed)
    conn.executemany(
        "UPDATE notes SET mtime = ?, size = ? WHERE vault_id = ? AND path = ?",
        [(m, s, vault_id, p) for p, m, s in touch],
    )
    if unresolved is not None:
        unresolved.add(link[0] for p in prepared for link in p.links if link[1] is None)
    return counts.after(conn, before, names) if counts is not None else None


def finish(
    conn: Any, *, vault_id: str, removed: list[str], paths: PathSet, added: list[str], ix: IndexerState
) -> Token | None:
    """Remove the notes gone from disk, re-resolve the links they (or new files) affect, record the
    sync; the row counts and unresolved targets the incremental writes keep are carried over it
    (the token for `Counts.committed`; more than `status.KEPT_MAX_PATHS` notes gone void them)."""
    before = ix._counts.before(conn, removed)
    for rel in removed:
        rows.delete_note(conn, vault_id, rel)
    rows.resolve_links(
        conn, vault_id, paths, only_unresolved=True, stale=removed, added=added, unresolved=ix._unresolved
    )
    conn.execute(
        "INSERT INTO index_state(vault_id, last_full_sync, last_change) VALUES (?, ?, ?)"
        " ON CONFLICT(vault_id) DO UPDATE SET last_full_sync = excluded.last_full_sync",
        (vault_id, time.time(), ix.last_change),
    )
    return ix._counts.after(conn, before, removed)
