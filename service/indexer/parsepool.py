"""Reading and parsing notes for a bulk load in worker processes, beside the single writer.

Why processes: parsing is pure Python and holds the GIL. In a thread beside the writer it
stalls the writer, whose SQLite work releases the GIL but must take it back after every
statement: on the 10k-note workload the writer spent ~40 % of a cold index waiting. In a
process the two really run at once.

Guarantees:
- `Parser.batch` returns exactly what `rows.read_batch` returns in this process (the same
  function runs in the worker; the links of its rows are resolved here, against the `PathSet`
  this process holds anyway: a copy in the worker was ~40 MB at 100k files);
- a worker that cannot start, dies or answers nonsense is never fatal: the batch is parsed in a
  thread instead and the rest of the load goes on in threads (logged once);
- `close()` leaves no process behind, also when the load was cancelled; a worker also ends with
  a server that dies (its input pipe ends, `service.indexer.parse_worker`).

A worker is a plain child process (`python -m service.indexer.parse_worker`) fed through its
standard input and output, not a multiprocessing pool: it imports only the parser (~21 MB, where
a spawned pool worker imported the settings and pydantic, ~41 MB), and nothing starts
multiprocessing's resource tracker (a 12 MB process for the server's lifetime). It is started
with fork+exec, never a bare fork: forking a process that runs an event loop and SQLite threads
can copy a lock held by another thread and hang the child.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, cast

from service import budget
from service.graph.linkpath import PathSet
from service.indexer import parse_worker, rows
from service.markdown.tasks import Style
from service.settings.limits import LimitsSettings

log = logging.getLogger(__name__)

Batch = parse_worker.Batch

# The folder `service` is imported from: the worker runs there, so it imports this very tree.
_IMPORT_ROOT = Path(parse_worker.__file__).resolve().parents[2]
STOP_WAIT_S = 10.0  # an idle worker ends as soon as its input does


class Worker:
    """One worker process and its two pipes; one batch at a time (`call` blocks: run it in a thread)."""

    def __init__(self, root: Path, limits: LimitsSettings, task_format: Style | None = None) -> None:
        """`limits`: the serving app's `[limits]`, for the frontmatter (and note length) the worker reads."""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.indexer.parse_worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=_IMPORT_ROOT,
        )
        self.busy = False
        sent = {name: getattr(limits, name) for name in parse_worker.SENT_LIMITS}
        self._send((os.path.abspath(root), sent, task_format))

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _send(self, message: object) -> None:
        stdin = cast(IO[bytes], self.proc.stdin)
        pickle.dump(message, stdin, protocol=pickle.HIGHEST_PROTOCOL)
        stdin.flush()

    def call(self, batch: list[str], known: dict[str, str]) -> Batch:
        self._send((batch, known))
        return parse_worker.read_answer(cast(IO[bytes], self.proc.stdout))

    def end(self, *, kill: bool) -> None:
        """Have the worker end: an idle one at the end of its input, a busy one (a cancelled
        load's batch, whose answer nobody reads) or any when `kill` killed."""
        if kill or self.busy:
            with contextlib.suppress(OSError):
                self.proc.kill()
        with contextlib.suppress(OSError):
            cast(IO[bytes], self.proc.stdin).close()

    def reap(self) -> None:
        """Wait for the ended worker (killed past `STOP_WAIT_S`) and close its output pipe."""
        try:
            self.proc.wait(timeout=STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        cast(IO[bytes], self.proc.stdout).close()


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
    parser's imports and a batch; it runs only for loads of `MIN_NOTES` and more.
    `[index] parse_workers` sets the count explicitly."""
    if usable is None:
        usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return 0 if usable < 2 else max(1, min(3, usable - 2))


class Parser:
    """Prepares batches for one reconcile: in `workers` processes, or in a thread when 0; task
    fields read in `task_format` (`rows.prepare`), frontmatter within `limits` (the app's `[limits]`)."""

    def __init__(
        self,
        root: Path,
        paths: PathSet,
        workers: int,
        task_format: Style | None = None,
        limits: LimitsSettings = budget.DEFAULT_LIMITS,
    ) -> None:
        self.root = root
        self.task_format = task_format
        self.paths = paths
        self.workers = workers
        self.batches = 0
        self.batches_in_processes = 0
        self._started: list[Worker] = []
        # Idle workers; None once the workers are given up or closed (it wakes every waiter).
        self._idle: asyncio.Queue[Worker | None] | None = None
        try:
            for _ in range(workers):
                self._started.append(Worker(root, limits, task_format))
        except (OSError, ValueError) as exc:
            log.warning("starting a parse worker process failed (%s); parsing in a thread instead", exc)
            _stop_all(self._started, kill=True)
            self._started = []
        if self._started:
            self._idle = asyncio.Queue()
            for worker in self._started:
                self._idle.put_nowait(worker)

    @property
    def in_processes(self) -> bool:
        return self._idle is not None

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids (none once they are given up or closed)."""
        return [w.pid for w in self._started]

    def _give_up(self, exc: BaseException) -> None:
        idle, self._idle = self._idle, None
        if idle is None:  # given up already: another batch saw the same failure
            return
        log.warning("parsing notes in worker processes failed (%r); parsing in a thread instead", exc)
        idle.put_nowait(None)
        workers, self._started = self._started, []
        _stop_all(workers, kill=True)  # each killed: reaped at once

    async def batch(self, batch: Sequence[str], known: dict[str, str]) -> Batch:
        self.batches += 1
        idle = self._idle
        worker = await idle.get() if idle is not None else None
        if worker is None and idle is not None:
            idle.put_nowait(None)  # given up or closed while this batch waited: wake the next
        elif worker is not None:
            worker.busy = True
            try:
                done = await asyncio.to_thread(worker.call, list(batch), known)
            except asyncio.CancelledError:
                raise  # the worker stays busy, its answer unread: `close` kills it
            except Exception as exc:  # noqa: BLE001 - a worker that died, a broken pipe or message
                self._give_up(exc)
            else:
                worker.busy = False
                if self._idle is idle and idle is not None:
                    idle.put_nowait(worker)
                self.batches_in_processes += 1
                return await asyncio.to_thread(_resolved, done, self.paths)
        return await asyncio.to_thread(rows.read_batch, self.root, batch, known, self.paths, self.task_format)

    async def close(self) -> None:
        idle, self._idle = self._idle, None
        if idle is not None:
            idle.put_nowait(None)
        workers, self._started = self._started, []
        if workers:
            # Idle workers end at the end of their input; a cancelled load's busy ones are killed.
            await asyncio.shield(asyncio.to_thread(_stop_all, workers, kill=False))


def _stop_all(workers: list[Worker], *, kill: bool) -> None:
    """End every worker (all at once), then reap each; `kill` also the idle ones."""
    for worker in workers:
        worker.end(kill=kill)
    for worker in workers:
        worker.reap()
