"""Reading and parsing notes for a bulk load in worker processes, beside the single writer.

Why processes: parsing is pure Python and holds the GIL. In a thread beside the writer it
stalls the writer, whose SQLite work releases the GIL but must take it back after every
statement: on the 10k-note workload the writer spent ~40 % of a cold index waiting. In a
process the two really run at once.

Guarantees:
- `Parser.batch` returns exactly what `rows.read_batch` returns in this process (the same
  function runs in the worker; the links of its rows are resolved here, against the `PathSet`
  this process holds anyway: a copy in the worker was ~40 MB at 100k files);
- a pool that cannot start, or breaks, is never fatal: the batch is parsed in a thread instead
  and the rest of the load goes on in threads (logged once);
- `close()` leaves no process behind, also when the load was cancelled.

Workers are started with `spawn`: forking a process that runs an event loop and SQLite threads
can copy a lock held by another thread and hang the child. On Linux a worker dies with the
server, also when the server is killed (`_die_with`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from service import budget
from service.graph.linkpath import PathSet
from service.indexer import rows
from service.indexer.issues import FileIssue
from service.settings.limits import LimitsSettings

log = logging.getLogger(__name__)

Batch = tuple[list[rows.Prepared], list[tuple[str, float, int]], list[FileIssue]]


_PR_SET_PDEATHSIG = 1  # prctl's option number in linux/prctl.h


def _init_worker(limits: LimitsSettings, server_pid: int) -> None:
    # Ctrl-C in a terminal reaches the whole process group: the server shuts the pool down
    # itself, so a worker must not die mid-batch with a traceback on the shared stderr.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with(server_pid)
    budget.configure(limits)  # the server's [limits] for the frontmatter it reads


def _die_with(server_pid: int) -> None:
    """Have the kernel kill this worker when the server's thread that started it ends, also by
    kill -9: a worker waits on the pool's queue, whose pipe it holds both ends of, so it never
    saw the server go and stayed (~50 MB, and multiprocessing's tracker with it). Linux only;
    elsewhere a worker still ends with a server that shuts down."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != server_pid:  # the server was gone before the kernel was told
        os._exit(0)


def _read_batch_in_worker(root: str, batch: Sequence[str], known: dict[str, str]) -> Batch:
    return rows.read_batch(Path(root), batch, known, None)  # links resolved by `Parser.batch`


def _resolved(done: Batch, paths: PathSet) -> Batch:
    prepared, touch, issues = done
    return rows.with_links_resolved(prepared, paths), touch, issues


# A load of fewer changed notes parses in a thread: starting a worker (an interpreter and the
# parser's imports, ~0.5 s of CPU) costs more than it saves below a few thousand notes.
MIN_NOTES = 4000


def default_workers(usable: int | None = None) -> int:
    """One worker on a machine of 2 CPUs; beyond that one CPU stays with the writer, one with the
    server, and the others parse, up to 3 (on 10k notes one worker parses about as fast as the
    writer stores, so more would only wait on it); none on 1 CPU. CPUs are those this process
    may run on (a container's cpuset), not every CPU of the host.

    Why one on 2 CPUs: a cold index is one process's CPU otherwise (~70 CPU-s at 100k notes,
    parse and writer taking turns under the GIL), while the second CPU idles. The worker holds
    no copy of the vault's paths (links are resolved in the server), so it stays at the
    parser's imports and a batch (~50 MB), plus multiprocessing's 12 MB resource tracker for
    the server's lifetime; it runs only for loads of `MIN_NOTES` and more.
    `[index] parse_workers` sets the count explicitly."""
    if usable is None:
        usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return 0 if usable < 2 else max(1, min(3, usable - 2))


class Parser:
    """Prepares batches for one reconcile: in `workers` processes, or in a thread when 0."""

    def __init__(self, root: Path, paths: PathSet, workers: int) -> None:
        self.root = root
        self.paths = paths
        self._pool: ProcessPoolExecutor | None = None
        self.workers = workers
        self.batches = 0
        self.batches_in_processes = 0
        if workers > 0:
            try:
                self._pool = ProcessPoolExecutor(
                    max_workers=workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_init_worker,
                    initargs=(budget.configured(), os.getpid()),
                )
            except (OSError, ValueError, NotImplementedError) as exc:
                self._give_up(exc)

    @property
    def in_processes(self) -> bool:
        return self._pool is not None

    def _give_up(self, exc: BaseException) -> None:
        log.warning("parsing notes in worker processes failed (%s); parsing in a thread instead", exc)
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    async def batch(self, batch: Sequence[str], known: dict[str, str]) -> Batch:
        loop = asyncio.get_running_loop()
        self.batches += 1
        if self._pool is not None:
            try:
                done = await loop.run_in_executor(
                    self._pool, partial(_read_batch_in_worker, str(self.root), list(batch), known)
                )
                self.batches_in_processes += 1
                return await asyncio.to_thread(_resolved, done, self.paths)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - BrokenProcessPool, pickling, spawn failures
                self._give_up(exc)
        return await asyncio.to_thread(rows.read_batch, self.root, batch, known, self.paths)

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            # Idle workers exit at once; a cancelled load waits for the batch a worker is on.
            await asyncio.shield(asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True))
