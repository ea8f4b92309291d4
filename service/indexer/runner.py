"""The per-vault indexer component: start-up reconcile in the background, then incremental updates.

`VaultIndexer` owns the index state of one vault, its life cycle and every background task
(the first reconcile, the trigram rebuild, the word index's merge, drops of notes found gone,
the file watcher); the work itself is in the engine modules beside it:

    scan.py       the disk scan and the files of a change (off the event loop)
    bulk.py       bulk-load mode: deferred query and trigram indexes, and their rebuild
    reconcile.py  bring the index in line with the vault folder
    apply.py      apply a batch of file changes
    early.py      writes through vaultgate while the index is built: between its batches
    status.py     row counts for status reports, cached per generation
    names.py      every note's path and aliases, patched with what each round touched
    watch.py      the file watcher (edits made by other programs)
    writer_job.py a write run in the background once calls pause (trigram rebuild, word merge)
    catch_up.py   updates that failed (a full cache disk): backlog and error, re-read until in

Guarantees:
- the server answers while the first reconcile runs; `state`/`progress` say how far it is and
  `wait_ready()` waits (bounded) for it;
- reconcile compares the vault with the index by mtime+size, then by content hash, so a warm
  restart re-parses nothing that did not change; notes gone from disk are removed;
- changes made through vaultgate (published on the vault's ChangeBus) during a tool call are
  queued for the next group-commit round (`group.py`) and the write is acknowledged without
  waiting; the caller's later calls that read the index wait for them (`fresh.py`); while the
  index is being built, its reconcile applies them between two batches (`early.py`). Changes
  published outside a call are applied before the publishing call returns. External edits come
  from the watcher (`watch.py`), which applies them here first and then publishes them with
  origin "external" for other listeners;
- parsing runs in a worker thread, writes go through the single writer in batched transactions,
  and `generation` increases after every applied batch (`wait_for(pred)` waits on it, no sleeping);
- symlinked files are never indexed: their text could come from outside the vault or from a note
  the ACL denies, and search results must not carry it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service.activity import Activity
from service.graph.linkpath import PathSet
from service.indexer import fresh, parsepool, rows
from service.indexer.apply import apply_changes
from service.indexer.bulk import DEFERRABLE_INDEXES, QueryIndexes, merge_words, rebuild_trigram, restore_indexes
from service.indexer.catch_up import CatchUp
from service.indexer.early import EarlyWrites
from service.indexer.group import GroupCommit
from service.indexer.issues import FileIssue, FileIssues
from service.indexer.known import KnownFiles
from service.indexer.names import NoteNames
from service.indexer.own_files import OwnFiles
from service.indexer.reconcile import drift, reconcile_vault, write_batch
from service.indexer.scan import scan
from service.indexer.state import State
from service.indexer.status import Counts, Token
from service.indexer.unresolved import UnresolvedTargets
from service.indexer.writer_job import WriterJob
from service.obsidian.task_status import task_format
from service.settings.index import IndexSettings
from service.storage.db import Database
from service.tasks import cancel_and_wait
from service.vault.events import FileChange
from service.vault.vault import Vault

if TYPE_CHECKING:
    from service.indexer.watch import Watcher  # imported at start(): loaded only when watching

__all__ = ["BATCH", "BULK_THRESHOLD", "DEFERRABLE_INDEXES", "State", "VaultIndexer", "indexer_of", "restore_indexes"]

log = logging.getLogger(__name__)
# Read at each call (tests lower them to exercise bulk loads on small vaults). A batch of 200
# notes (was 400) is one write transaction: the cold 10k-note build's peak RSS fell by 8 MB and
# its time did not grow (docs/benchmarks.md).
BATCH = 200
BULK_THRESHOLD = 1000  # changed notes from which the trigram index is rebuilt in one pass
TRIGRAM_WAIT_S = 60.0  # for a pause in the calls before the rebuild; it runs after this anyway
WATCH_SETUP_S = 60.0  # the rescan after the watcher's setup waits no longer for it
AFTER_WRITE_POLL_S = 0.05  # how often an event for a file a write of ours holds looks again


def indexer_of(vault: Vault) -> VaultIndexer | None:
    return vault.index if isinstance(vault.index, VaultIndexer) else None


class VaultIndexer:
    def __init__(
        self,
        vault: Vault,
        db: Database,
        *,
        index: IndexSettings | None = None,
        ignore: tuple[Path, ...] = (),
        activity: Activity | None = None,
    ) -> None:
        """`index`: the `[index]` settings (the watcher, parse workers); `activity`: the calls running, for
        work that can wait for a pause in them (the trigram rebuild after a bulk load: seconds holding the writer)."""
        self.vault = vault
        self.activity = activity
        self._ignore = ignore  # vaultgate's own folders: the watcher never reacts to them
        self._settings = index = index or IndexSettings()
        self.parse_workers = parsepool.default_workers() if index.parse_workers is None else index.parse_workers
        self.db = db
        self.name = f"indexer:{vault.id}"
        self.state: State = "starting"
        self.error: str | None = None
        self.done = 0
        self.total = 0
        self.backlog = 0
        self.last_sync: float | None = None
        self.last_change: float | None = None
        self.generation = 0
        self.active_job: str | None = None
        self._files = KnownFiles()  # every vault file the index knows (`known.py`)
        self._counts = Counts(db, vault.id, kept=True)
        self._unresolved = UnresolvedTargets(vault.id)  # what a new note may resolve (`unresolved.py`)
        self._issues = FileIssues(vault.id)  # files left out of the index, or read as not UTF-8
        self._read_whole: dict[str, tuple[str, int]] = {}  # `reconcile.name_capped`'s notes within the cap
        # Every note's path and aliases, patched per round: what note addresses resolve against (`names.py`).
        self.names: NoteNames[Any] = NoteNames()
        self._paths: PathSet | None = None  # PathSet of _files, rebuilt only after _files changes
        self._cond = asyncio.Condition()
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._watcher: Watcher | None = None
        self._apply_lock = asyncio.Lock()
        self.trigram_ready = True  # False from a bulk load until its trigram rebuild is done
        # Background writes once calls pause (`writer_job.py`): the trigram rebuild, the word index's merge.
        job = partial(WriterJob, db, activity, wait_s=TRIGRAM_WAIT_S)
        no_prefilter = "regex search scans without prefilter"
        self.trigram = job(f"{self.name}:trigram", rebuild_trigram, failed=no_prefilter, done=self._trigram_built)
        self.word_merge = job(f"{self.name}:merge", merge_words, failed="searches read the word segments as they are")
        self.query_indexes = QueryIndexes(db)  # a cold load's, built after ready (`bulk.py`)
        self.task_format = task_format(vault.paths.root)  # each reconcile reads it again (`task_format.py`)
        self._side_tasks: set[asyncio.Task[None]] = set()
        self._early = EarlyWrites()  # own writes made while the index is built: between its batches
        self.catch_up = CatchUp(self.reconcile, self.name)  # failed updates: re-read until they are in
        self._group = GroupCommit(self._apply_own, self.name, self.catch_up.failed)  # concurrent writers' changes
        self._own_files = OwnFiles(vault.paths.root)  # what the watcher may skip: our own queued writes
        vault.index = self

    # -- life cycle --------------------------------------------------------------------------

    async def start(self) -> None:
        self.vault.bus.subscribe(self._on_changes, first=True)
        if self._settings.watch:
            from service.indexer.watch import Watcher

            self._watcher = Watcher(
                self.vault.paths,
                self.vault.id,
                self._apply_external,
                self.vault.bus.publish,
                self._settings.debounce_ms,
                ignore=self._ignore,
                resync=self.reconcile,
                failed=self.catch_up.failed,
                ours=self._ours,
                drift=partial(drift, self),
                poll_only=self._settings.watch_mode == "poll",
                poll_s=self._settings.watch_poll_s,
            )
        self._task = asyncio.create_task(self._initial(), name=self.name)

    async def stop(self) -> None:
        self.vault.bus.unsubscribe(self._on_changes)
        if self._watcher is not None:
            await self._watcher.stop()
        await self._group.stop()
        await self.catch_up.stop()  # after the group: its last round may still fail
        for task in (self._task, *self._side_tasks):
            if task is not None:
                await cancel_and_wait(task)
        await self.query_indexes.cancel()  # after the reconcile: it may ask for any of these as it ends
        await self.trigram.cancel()
        await self.word_merge.cancel()

    async def _initial(self) -> None:
        """The file watcher and the first reconcile, in the order that keeps calls moving. On a warm
        restart the first calls are answered from the index at once: the watch starts after the first
        reconcile (its set-up walks every folder), and the vault is read once more after it is in place
        (changed files only are parsed). With an empty index nothing can be answered before the load:
        the watch is set up first and the one reconcile follows (a second reading after a 100k-note
        load raised its peak RSS from 259 to 333 MB). Either way an edit made at any time is read by a
        reconcile that started after the watch was in place, or seen by the watch. `wait_ready`
        returns after both."""
        try:
            warm = await self.db.fetchone("SELECT 1 FROM notes WHERE vault_id = ? LIMIT 1", (self.vault.id,))
        except Exception:  # noqa: BLE001 - the reconcile reports what is wrong with the index
            warm = None
        try:
            if warm is None:
                await self._start_watch()
            await self._first_reconcile()
        finally:
            try:
                if warm is not None and await self._start_watch():
                    await self._rescan()
            finally:
                self._ready.set()
                await self._bump()

    async def _start_watch(self) -> bool:
        """Start the watcher and wait (bounded) until its watch is in place; False: no watcher."""
        if self._watcher is None:
            return False
        await self._watcher.start()
        established = asyncio.ensure_future(self._watcher.established.wait())
        try:
            await asyncio.wait({established}, timeout=WATCH_SETUP_S)
        finally:
            established.cancel()
        return True

    async def _rescan(self) -> None:
        if self.state == "failed":
            return  # as the first reconcile left it: a reindex, not this rescan, tries again
        try:
            await self.reconcile(give_way=True)
        except Exception:
            log.exception("re-reading %s after the watcher started failed", self.vault.id)

    async def _first_reconcile(self) -> None:
        started = time.perf_counter()
        try:
            counts = await self.reconcile(give_way=True)
            log.info(
                "index of vault %s complete: %d files, %d parsed, %d removed in %.1f s",
                self.vault.id,
                counts.get("scanned", 0),
                counts.get("indexed", 0),
                counts.get("removed", 0),
                time.perf_counter() - started,
            )
        except Exception as exc:
            log.exception("initial index of %s failed", self.vault.id)
            self.state, self.error = "failed", f"{type(exc).__name__}: {exc}"
            with contextlib.suppress(Exception):
                await self._early.drain(self, bulk_threshold=BULK_THRESHOLD, lock_held=False)

    @property
    def watching(self) -> bool:
        """Whether a file watcher is applying edits made by other programs."""
        return self._watcher is not None

    @property
    def polling(self) -> str | None:  # why the watcher polls instead of taking the OS's events (`watch_poll.py`)
        return None if self._watcher is None else self._watcher.polling

    @property
    def ready(self) -> bool:
        return self.state == "ready"

    @property
    def vault_id(self) -> str:
        return self.vault.id

    @property
    def applied_seq(self) -> int:
        """Every queued index update up to this sequence number has been applied."""
        return self._group.applied

    @property
    def queued_seq(self) -> int:
        """Sequence number of the last index update queued."""
        return self._group.queued

    @property
    def queued_updates(self) -> int:
        """Index updates of acknowledged writes not applied yet."""
        return self._group.pending

    async def caught_up(self, seq: int) -> None:
        """Return once the queued index updates up to `seq` have been applied."""
        await self._group.wait_applied(seq)

    def files(self) -> list[str]:
        """Every vault file the index knows (notes and attachments), vault-relative."""
        return self._files.ordered()

    async def wait_ready(self, within: float = 120.0) -> None:
        await asyncio.wait_for(self._ready.wait(), within)

    async def wait_for(self, predicate: Callable[[], bool], within: float = 30.0) -> None:
        async def waiter() -> None:
            async with self._cond:
                await self._cond.wait_for(predicate)

        await asyncio.wait_for(waiter(), within)

    async def _bump(self, touched: Iterable[str] | None = None) -> None:
        """A batch is applied: `touched` are the paths whose rows it changed (None: any)."""
        self.names.touched(touched)
        async with self._cond:
            self.generation += 1
            self._cond.notify_all()

    # -- work (in the engine modules) --------------------------------------------------------

    def _scan(self) -> tuple[dict[str, tuple[float, int]], set[str]]:
        return scan(self.vault.paths)

    async def reconcile(
        self, *, full: bool = False, progress: Callable[[int, int], Any] | None = None, give_way: bool = False
    ) -> dict[str, int]:
        """Bring the index in line with the vault; `full` re-parses every note; `give_way`: the
        reading of the vault waits while calls run, within a budget (the start's reconciles)."""
        return await reconcile_vault(
            self, full=full, progress=progress, batch_size=BATCH, bulk_threshold=BULK_THRESHOLD, give_way=give_way
        )

    def _write_batch(
        self,
        conn: Any,
        prepared: list[rows.Prepared],
        touch: list[tuple[str, float, int]],
        issues: list[FileIssue] | None = None,
        bulk: bool = False,
        new: bool = False,
    ) -> Token | None:
        """A reconcile's batch, the kept row counts and unresolved targets carried (`write_batch`)."""
        kept = (self._counts, self._unresolved)
        return write_batch(conn, self.vault.id, prepared, touch, issues, bulk=bulk, new=new, kept=kept)

    def _void_kept(self) -> None:
        """A write the row counts and the unresolved targets were not carried over (the writer's
        thread): both are read again at their next use, and so are the note names."""
        self._counts.void()
        self._unresolved.void()
        self.names.touched(None)

    async def apply(
        self, changes: Sequence[FileChange], *, only_if_changed: bool = False, lock_held: bool = False
    ) -> list[FileChange]:
        """Apply file changes; with `only_if_changed`, skip files the index already has as they are.
        `lock_held`: the caller (reconcile) holds the apply lock already.

        Returns the changes that actually altered the index."""
        return await apply_changes(
            self, changes, only_if_changed=only_if_changed, lock_held=lock_held, bulk_threshold=BULK_THRESHOLD
        )

    async def _apply_external(self, changes: Sequence[FileChange]) -> list[FileChange]:
        """What the watcher saw, applied unless already in the index (`only_if_changed`). A file
        our own writes' update reads later anyway (`_ours`; mostly dropped by the watcher already)
        is left to it: the watcher mostly sees those writes, and parsing them twice doubled their cost."""
        left: list[FileChange] = []
        for change in changes:
            if change.kind in ("created", "modified"):
                if self.vault.files.writing(change.path) is not None:
                    self._background(self._after_write(change), "after-write")
                    continue
                if self._ours(change.path):
                    continue
            left.append(change)
        return await self.apply(left, only_if_changed=True) if left else []

    def _ours(self, path: str) -> bool:  # read later anyway: held by an open batch, queued, as our write left it
        return self.vault.bus.holds(path) or self._group.will_read(path) or self._own_files.unchanged(path)

    async def _after_write(self, change: FileChange) -> None:
        """An event for a file a write of ours holds now: it queues its own update as it ends
        (its round reads the file later), unless it gives up (a conflict) and writes nothing;
        then the event is applied as the watcher would have. It only looks at the write's lock,
        never takes it, so no write of the file ever waits for the watcher."""
        while self.vault.files.writing(change.path) is not None:  # noqa: ASYNC110 - looks, never takes it
            await asyncio.sleep(AFTER_WRITE_POLL_S)
        if not self._ours(change.path):
            effective = await self.apply([change], only_if_changed=True)
            if effective:
                await self.vault.bus.publish(effective)

    def _rebuild_trigram_later(self) -> None:
        """Rebuild the deferred trigram index in the background (once more after a rebuild under
        way: its transaction may have come before this deferral)."""
        self.trigram_ready = False
        self.trigram.ask()

    def _trigram_built(self) -> None:
        self.trigram_ready = True

    # -- changes published on the bus ------------------------------------------------------------

    async def _on_changes(self, changes: Sequence[FileChange]) -> None:
        own = [c for c in changes if c.origin != "external"]
        if not own:
            return
        self._own_files.queued(c.path for c in own if c.kind != "deleted")
        mark = fresh.current.get()
        if mark is None or not mark.queue:  # outside a client's call: applied before returning
            await self._group.submit(own)
        else:  # a tool call: acknowledged now, its caller's next index read waits for it
            mark.owe(self.vault.id, self._group.enqueue(own))

    async def _apply_own(self, changes: Sequence[FileChange]) -> None:
        """A group round: while the index is built, by its reconcile (`early.py`), else at once."""
        if not await self._early.submit(changes):
            await self.apply(changes)

    def forget(self, paths: Iterable[str]) -> None:
        """Queue notes a reader found missing on disk for removal, as the watcher would (it may
        not have seen the deletion yet, or may not run at all)."""
        changes = [FileChange("deleted", p, origin="external") for p in paths]

        async def drop() -> None:
            effective = await self.apply(changes, only_if_changed=True)
            if effective:
                await self.vault.bus.publish(effective)

        self._background(drop(), "forget")

    def _background(self, work: Coroutine[Any, Any, None], what: str) -> None:
        """Run `work` beside the caller; cancelled at stop, a failure logged."""

        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("%s of %s failed", what, self.name)

        task = asyncio.create_task(run(), name=f"{self.name}:{what}")
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    # -- reporting ---------------------------------------------------------------------------

    async def counts(self) -> dict[str, int]:
        """Row counts for status reports, cached per generation (`status.Counts`; read before the query)."""
        return await self._counts.get(self.generation, moving=self.state == "reconciling")

    @property
    def file_issues(self) -> FileIssues:
        """Files left out of the index, or indexed from a file that is not UTF-8 (`issues.py`)."""
        return self._issues

    def snapshot(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "ready": self.ready,
            "progress": {"done": self.done, "total": self.total},
            "backlog": self.backlog,
            "last_sync": self.last_sync,
            "error": self.error,
        }
