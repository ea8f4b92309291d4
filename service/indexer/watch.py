"""File watcher: edits made by other programs reach the index and the change bus.

On Linux the kernel's inotify reports the changes, read by the event loop (`inotify.py`: a read
of a note, or an idle vault, wakes nothing); elsewhere `watchfiles` (Rust notify) does, waited
for in worker threads. Either way events come in batches, debounced. Each batch is
mapped to vault paths (hidden folders, dot files, our own temp files and vaultgate's own folders —
the index, the data folder, the event spool, wherever they are — ignored: a filter drops them
before a batch is even formed), applied to
the index with `only_if_changed` — vaultgate's own writes are left to the group-commit round
their write queued (`VaultIndexer._apply_external`, `own_files.py`), and one already indexed is
dropped — and what really changed is published on the vault's bus with origin "external"
(resource subscribers listen there).

The events of vaultgate's own writes are dropped as they come, before anything else is done with
them (no `Path` built, nothing stat'ed for most): an event for a temp file, or one other than a
deletion for a vault path whose change the index will read from disk later than now anyway (`ours`: a change held by an
open `ChangeBus.batch`, a queued round of our own writes, a file still as our write left it,
`VaultIndexer._ours`). What another program wrote to such a file before the event is therefore
what that later reading indexes, so no external edit is lost. A hub rename rewriting 3,000 notes
had the watcher parse and index every one of them during the rename (its changes are held until
it ends), and the rename's own update parse them again (docs/benchmarks.md, 2026-12-05).

Symlinks are refused as the start-up scan refuses them: a path with a link on the way (a folder
or file linked in while serving, `ln -s /outside Vault/Linked`, or anything the OS reports
below it) is never read into the index. A link that appears where a file or folder was
indexed is reported as that path's deletion, so the index forgets what the link now hides.

The watcher outlives a failure of its own: the watch is started again (after a pause that grows
while failures repeat, reset by the next good batch) and `resync` re-reads the vault. A name that
is not UTF-8 ends a whole `watchfiles` watch (`watch_plan.py`): after the first such failure the
watcher watches around such folders. A watch that fails on the OS's limit of watches is replaced
by polling for a while (`watch_poll.py`), as with `[index] watch_mode = "poll"`.

Setting the watch up walks every folder (0.06-0.26 s at 100k notes) in a worker thread, and
`established` is set once it is in place: the indexer starts it after its first reconcile and
reads the vault once more after `established`, so an edit made at any time is either in that
rescan or seen by the watch. The watcher is given what it uses (the vault's paths, an `apply`,
a `publish`, a `resync`, an `ours` and a `drift` callable), not the indexer: it sits below `runner.py`, which builds it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from service.indexer.inotify import Inotify, WatchLost, available
from service.indexer.watch_plan import WatchPlan, plan
from service.indexer.watch_poll import RETRY_EVENTS_S, DriftFn, at_limit, poll
from service.storage.db import locked
from service.tasks import cancel_and_wait
from service.vault.decoding import is_utf8_name
from service.vault.events import FileChange
from service.vault.paths import VaultPaths

log = logging.getLogger(__name__)

# Applies external changes to the index (with only_if_changed); returns those that altered it.
ApplyFn = Callable[[Sequence[FileChange]], Awaitable[list[FileChange]]]
PublishFn = Callable[[Sequence[FileChange]], Awaitable[None]]
ResyncFn = Callable[[], Awaitable[object]]
RESTART_MIN_S = 0.05  # pause before watching again after a failure, doubled while failures repeat
RESTART_MAX_S = 5.0
BATCH_PAUSES_S = (1.0, 5.0)  # a batch failing on a locked cache.db is applied again after these (`_batch`)
WAIT_MS = 5_000  # a wait for events in the worker thread returns this often (stop is checked sooner)
# A batch is handed over once a step passes without a new event (or `debounce_ms` after the
# first), so an edit waits one to two steps (20 ms steps: ~35 ms save -> searchable at 100k).
STEP_MS = 10
# watchfiles only: within `IDLE_AFTER_S` of the last event the wait looks every `STEP_MS`, else
# every `IDLE_STEP_MS` (each look takes the interpreter's lock; 100 a second woke an idle server).
IDLE_STEP_MS = 50
IDLE_AFTER_S = 30.0
Batch = set[tuple[int, str]] | Literal["signal", "stop", "timeout"]  # what a wait returns
UNDECODABLE = "Unable to decode path"  # how watchfiles says a path was not UTF-8
INOTIFY = available()  # Linux: inotify read by the event loop (`inotify.py`); elsewhere watchfiles
DELETED = 3  # an event's kind, as watchfiles numbers them (1 added, 2 modified, 3 deleted)
RustNotify: Any = None  # watchfiles' watch, once `rust_notify` loaded it (tests put a fake here)


def rust_notify() -> Any:
    """watchfiles' watch, imported on first use (~7 MB and ~35 ms a server using inotify never needs)."""
    if RustNotify is not None:
        return RustNotify
    from watchfiles._rust_notify import RustNotify as loaded

    return loaded


class Watcher:
    def __init__(
        self,
        paths: VaultPaths,
        vault_id: str,
        apply: ApplyFn,
        publish: PublishFn,
        debounce_ms: int = 50,
        *,
        ignore: tuple[Path, ...] = (),
        resync: ResyncFn | None = None,
        failed: Callable[[list[str], BaseException], None] | None = None,
        ours: Callable[[str], bool] | None = None,
        drift: DriftFn | None = None,
        poll_only: bool = False,
        poll_s: float = 10.0,
    ) -> None:
        self.paths = paths
        self.ours = ours  # a vault path the index reads later anyway: its events are dropped (`_sift`)
        self.dropped = 0  # events dropped by `ours`
        self._prefix = str(paths.root) + os.sep
        self.resync = resync
        self.drift = drift  # what differs from the index: read when polling (`watch_poll.py`)
        self.poll_only, self.poll_s = poll_only, poll_s
        self.polling: str | None = None  # why the vault is polled (`[index] watch_mode`, the OS's limit)
        self.limited = False  # the OS's watch failed on its limit once (told in the log once)
        self.failed = failed  # told the paths of a batch whose apply failed (`catch_up.CatchUp.failed`)
        self.restarts = 0  # how often the watch failed and was started again
        # Set after a failure on a name that is not UTF-8: from then on every watch is planned
        # around such folders (a walk of the folders first; `watch_plan.py`).
        self.split = False
        self.ignore = tuple(str(folder) for folder in ignore)
        self.vault_id = vault_id
        self.apply = apply
        self.publish = publish
        self.debounce_ms = debounce_ms
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        # Every re-reading under way: a failure during one starts another, and stop ends them all
        # (only the last was kept, so an earlier one went on reconciling after stop).
        self._resyncs: set[asyncio.Task[None]] = set()
        self._good = False
        self.last_event = -math.inf  # when the watch last reported events (the step follows it): never
        self.established = asyncio.Event()  # the first watch is in place: edits from now on are seen

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"watch:{self.vault_id}")

    async def stop(self) -> None:
        self._stop.set()
        await cancel_and_wait(self._task)  # first: no re-reading starts after it
        for task in list(self._resyncs):
            await cancel_and_wait(task)

    def own(self, raw: str) -> bool:
        """A file of vaultgate's own (temp files, the index, the data folder): never a change."""
        return raw.endswith(".vgtmp") or any(raw == folder or raw.startswith(folder + os.sep) for folder in self.ignore)

    def _sift(self, raw: set[tuple[int, str]]) -> set[tuple[int, str]]:
        """The events of a wait worth handling: none for a temp file of ours, none but a deletion
        for a vault path `ours` names (module docstring; a deletion is applied and told as before,
        so subscribers hear that a note we wrote went). Looked at by their text alone: a name spelt
        otherwise (NFD, a folder's other letter case) misses the lookup and is handled as before."""
        kept: set[tuple[int, str]] = set()
        prefix, cut, ours = self._prefix, len(self._prefix), self.ours
        for change, raw_path in raw:
            if raw_path.endswith(".vgtmp"):
                continue
            if ours is not None and change != DELETED and raw_path.startswith(prefix):
                rel = raw_path[cut:] if os.sep == "/" else raw_path[cut:].replace(os.sep, "/")
                if ours(rel):
                    self.dropped += 1
                    continue
            kept.add((change, raw_path))
        return kept

    def _in_place(self) -> None:
        """The OS's watch is in place: every edit from now on is seen (polling has ended)."""
        self.polling = None
        self.established.set()

    def _relevant(self, raw: str) -> str | None:
        if self.own(raw):
            return None
        path = Path(raw)
        if path.name.startswith(".") or path.name.endswith(".vgtmp"):
            return None
        return self.paths.from_abs(path)

    def _changes(self, rels: list[str]) -> list[FileChange]:
        """Batch paths as changes; a folder that appeared (created, or renamed into place) stands
        for every file under it, since the OS reports only the folder itself."""
        out: list[FileChange] = []
        for rel in rels:
            full = self.paths.on_disk(rel)  # an NFD name from macOS is this NFC path's file
            if self.paths.has_link(rel):
                if os.path.islink(full):  # the link itself: what was indexed at its path is gone
                    out.append(FileChange("deleted", rel, origin="external"))
                continue  # never indexed through a link (its text may come from outside the vault)
            if full.is_dir():
                for path in sorted(_files_below(full)):
                    inner = self._relevant(str(path)) if path.is_file() else None
                    hidden = inner is None or any(part.startswith(".") for part in Path(inner).parts)
                    if inner and not hidden and not self.paths.has_link(inner):
                        out.append(FileChange("modified", inner, origin="external"))
            else:
                out.append(FileChange("modified" if full.exists() else "deleted", rel, origin="external"))
        return out

    async def _run(self) -> None:
        pause = RESTART_MIN_S
        again = False
        limit: Exception | None = None  # the watch failed on the OS's limit: polling for a while
        while True:
            self._good = False
            try:
                if self.drift is not None and (self.poll_only or limit is not None):
                    if await self._poll(limit):
                        return  # stopped
                    limit, again = None, True  # the watch tried again; once in place, the vault is read again
                    continue
                await self._watch(resync=again)
                return  # stopped
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the watch must go on (module docstring)
                if self.drift is not None and at_limit(exc):  # a watch's failure: a look's are polling's own
                    limit, self.restarts = exc, self.restarts + 1
                    continue
                if UNDECODABLE in str(exc):
                    log.warning(
                        "file watcher for %s met a name that is not UTF-8 (%s); watching again around such folders",
                        self.vault_id,
                        exc,
                    )
                    self.split = True
                else:  # a lost watch (`WatchLost`: an overflow, the root gone) is told by its reason, no traceback
                    trace = not isinstance(exc, WatchLost)
                    log.warning("file watcher for %s failed (%s); watching again", self.vault_id, exc, exc_info=trace)
            self.restarts += 1
            pause = RESTART_MIN_S if self._good else min(pause * 2, RESTART_MAX_S)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), pause)
                return
            again = True

    async def _poll(self, limit: Exception | None) -> bool:
        """Poll the vault (`watch_poll.py`): for good (`[index] watch_mode = "poll"`), or for a while
        after the watch failed on the OS's `limit`. True: stopped."""
        assert self.drift is not None
        if limit is not None and not self.limited:
            log.warning("file watcher for %s cannot watch every folder (%s): looking for changes every %.0f s or more"
                        " instead; raise fs.inotify.max_user_watches (or max_user_instances) for events",
                        self.vault_id, limit, self.poll_s)  # fmt: skip
        self.limited = self.limited or limit is not None
        self.polling = "watch_mode" if limit is None else f"the OS's watch limit: {limit}"
        self.established.set()
        retry = None if limit is None else RETRY_EVENTS_S
        return await poll(self.drift, self.handle, self.poll_s, self._stop, self._prefix, for_s=retry)

    async def handle(self, raw: set[tuple[int, str]]) -> None:
        """A wait's events, or polling's (`watch_poll.py`): sifted (`_sift`), then indexed (`_batch`)."""
        changes = self._sift(raw)
        if changes:
            await self._batch(changes)
        else:
            self._good = True  # all of them ours: handled

    async def _resync(self) -> None:
        assert self.resync is not None
        try:
            await self.resync()
        except Exception:
            log.exception("re-reading %s after the watcher failed", self.vault_id)

    def _open(self) -> list[Any]:
        """The watches of the vault: its root with all below it, or once a name that is not UTF-8
        was met, the watches `watch_plan.plan` lays out around such folders."""
        root = str(self.paths.root)
        laid = plan(root) if self.split else WatchPlan((root,), (), ())
        if laid.skipped:
            log.warning(
                "file watcher for %s leaves out folders whose names are not UTF-8: %s", self.vault_id, laid.skipped
            )
        # (paths, debug, force_polling, poll_delay_ms, recursive, ignore_permission_denied)
        make = rust_notify()
        notifies = [make(list(laid.recursive), False, False, 300, True, True)] if laid.recursive else []
        if laid.alone:
            notifies.append(make(list(laid.alone), False, False, 300, False, True))
        return notifies

    async def _watch(self, *, resync: bool) -> None:
        if INOTIFY:
            await self._watch_inotify(resync=resync)
        else:
            await self._watch_notify(resync=resync)

    def _open_inotify(self) -> Inotify:
        ignore = tuple(os.fsencode(folder) for folder in self.ignore)
        watch = Inotify(
            str(self.paths.root), skip=lambda path: any(path == f or path.startswith(f + b"/") for f in ignore)
        )
        try:
            watch.open()
        except BaseException:
            watch.close()
            raise
        return watch

    async def _watch_inotify(self, *, resync: bool) -> None:
        """Watch with inotify until stopped (`service.indexer.inotify`): the event loop reads the
        events as they come; a batch is handed over once a step (`STEP_MS`) passes without a new
        one, or `debounce_ms` after its first."""
        opening = asyncio.ensure_future(asyncio.to_thread(self._open_inotify))
        try:
            watch = await asyncio.shield(opening)
        except asyncio.CancelledError:  # stopped during the set-up: its descriptor is closed when it ends
            opening.add_done_callback(_close_opened)
            raise
        loop = asyncio.get_running_loop()
        pending: set[tuple[int, str]] = set()
        came = asyncio.Event()
        state: dict[str, Any] = {"events": 0, "lost": None}

        def readable() -> None:
            try:
                got = watch.drain()
            except Exception as exc:  # noqa: BLE001 - raised by the task below (a restart)
                state["lost"] = exc
                loop.remove_reader(watch.fd)
                came.set()
                return
            if got:
                pending.update(got)
                state["events"] += 1
                came.set()

        loop.add_reader(watch.fd, readable)
        try:
            self._in_place()
            if resync:
                self._start_resync()
            while True:
                await came.wait()
                first, seen = time.monotonic(), -1
                while state["lost"] is None and state["events"] != seen:
                    seen = state["events"]
                    if time.monotonic() - first >= self.debounce_ms / 1000:
                        break
                    await asyncio.sleep(STEP_MS / 1000)
                came.clear()
                if state["lost"] is not None:
                    raise state["lost"]
                await watch.walked()  # the folders below those that came: watched before the batch lists them
                raw = set(pending)
                pending.clear()
                self.last_event = time.monotonic()
                await self.handle(raw)
        finally:
            if state["lost"] is None:
                loop.remove_reader(watch.fd)
            watch.close()

    async def _watch_notify(self, *, resync: bool) -> None:
        """Watch until stopped; a batch that went well sets `_good` (the next failure then starts
        from the shortest pause again). What `watchfiles.awatch` does, with the watch set up in a
        worker thread (module docstring), and one wait per watch when there are two. `resync`:
        after a failure, the vault is read again once the new watch is in place (what changed
        since is in the rescan or seen by the watch)."""
        notifies = await asyncio.to_thread(self._open)
        halt = threading.Event()  # ends this watch's waits: stop, or one of its watches failed
        waits: dict[asyncio.Future[Batch], Any] = {}
        try:
            self._in_place()
            if resync:
                self._start_resync()
            while True:
                step = STEP_MS if time.monotonic() - self.last_event < IDLE_AFTER_S else IDLE_STEP_MS
                for notify in notifies:
                    if notify not in waits.values():
                        wait = asyncio.to_thread(notify.watch, self.debounce_ms, step, WAIT_MS, halt)
                        waits[asyncio.ensure_future(wait)] = notify
                done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                for waiting in done:
                    del waits[waiting]
                    raw = waiting.result()
                    if raw == "stop" or raw == "signal":
                        return
                    if raw == "timeout":
                        continue
                    self.last_event = time.monotonic()
                    await self.handle(raw)
        finally:
            # A wait returns at its next step (<= IDLE_STEP_MS); `close` must not run while one
            # still uses its watch (as awatch waits for its thread).
            halt.set()
            if waits:
                await asyncio.wait(waits, timeout=1.0)
            for notify in notifies:
                notify.close()

    async def _batch(self, batch: set[tuple[int, str]]) -> None:
        """Index a batch of events. One whose apply failed on a locked cache.db (another process
        writing: `service.storage.db.begin_immediate`) is read again from disk and applied again
        after each pause of BATCH_PAUSES_S; still locked, the vault is re-read (`resync`) rather
        than the batch's notes left stale until the next reconcile. Another failure is logged (a
        re-read of the whole vault per save of a file that keeps failing would walk every file)."""
        rels = sorted({rel for _, raw in batch if not self.own(raw) and (rel := self._relevant(raw))})
        if not rels:
            return
        for pause in (*BATCH_PAUSES_S, None):
            changes = await asyncio.to_thread(self._changes, rels)
            try:
                effective = await self.apply(changes)
                break
            except Exception as exc:
                if not locked(exc):  # not another process: a re-reading brings them in (`catch_up.py`)
                    log.exception("applying external changes failed")
                    if self.failed is not None:
                        self.failed(rels, exc)
                    return
                if pause is None:
                    log.exception("applying external changes failed; re-reading the vault")
                    self._start_resync()
                    return
                log.warning("applying external changes: %s; trying again in %.1f s", exc, pause)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), pause)
                    return
        self._good = True
        if effective:
            await self.publish(effective)

    def _start_resync(self) -> None:
        if self.resync is None or self._stop.is_set():
            return
        task = asyncio.create_task(self._resync(), name=f"watch-resync:{self.vault_id}")
        self._resyncs.add(task)
        task.add_done_callback(self._resyncs.discard)


def _close_opened(opening: asyncio.Future[Inotify]) -> None:
    if not opening.cancelled() and opening.exception() is None:
        opening.result().close()


def _files_below(folder: Path) -> list[Path]:
    """Every file below `folder`, not entering a folder whose name is not UTF-8 (opening one would
    end the watch: `watch_plan.py`) nor following a symlinked folder."""
    found: list[Path] = []
    for here, folders, names in os.walk(folder):
        folders[:] = [name for name in folders if is_utf8_name(name)]
        found.extend(Path(here, name) for name in names)
    return found
