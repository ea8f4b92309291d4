"""Long multi-file changes: progress, cancellation, and all or nothing.

A change that touches many files (a move that rewrites links, `rewrite_links`, `rename_tag`,
`bulk_create_notes`) runs in two phases:

- **prepare** reads and computes every new file content and writes nothing. It calls
  `Steps.step("prepare", done, total)` once per item: that reports progress (when the client
  gave a progress token) and is a cancellation point, so a cancelled call (stdio or HTTP
  `notifications/cancelled`, or a closed 2026-07-28 HTTP response stream) stops here with the
  vault untouched.
- **commit** (`commit`) applies the prepared actions inside `anyio.CancelScope(shield=True)`:
  a cancellation that arrives while files are written waits until the last one is written and
  the change has been delivered (`around`, e.g. the change bus's batch that updates the index),
  so the call never ends half-applied. When an action fails (an OS error, a `conflict` because
  a note changed since it was read), the undo of every action done runs in reverse order and
  the error is re-raised: the vault ends as it started. An undo writes only over the change's
  own bytes (the etag it wrote): a note another caller or program edited since is left as it is
  (a conflict: its edit is never lost), and the error re-raised says how many changes could not
  be put back (`details.not_rolled_back`).
- **several at once** (`Together`): a move's link rewrites (distinct notes, none depending on
  another) are written up to `TOGETHER` at a time, in chunks: the next chunk starts once every
  write of the one before has ended. Each write is still alone in what it guarantees: its journal
  record is made before its temp file, the temp file is fsynced, renamed over the note and the
  folder fsynced, so a process killed at any point leaves each note old or new, never torn, and
  the next start rolls the whole change back from the journal (`service.plans.recovery`); the
  killed chunk's notes not yet renamed leave their temp files (at most `TOGETHER`), which the
  next start's scan removes (`service.vault.temps.sweep`). Only the fsyncs overlap, which the
  file system commits together (docs/benchmarks.md: a hub rename of 3,000 notes about 1.8x faster).
  A chunk's writes run on their own threads (`TOGETHER` of them, not the default pool every other
  caller's reads and index updates share) and each folder they renamed a note in is fsynced once,
  when they have all ended, before the next chunk starts (`service.vault.chunks`).
- **a stopping server**: a journaled change (`service.plans.recovery.journaled`, a plan step, an
  undo) checks before each action, and before each chunk of a `Together`, whether the server
  began to stop (`stop_requested`); if so the writes under way end first (at most one chunk), then
  it takes back everything it did and fails with `server_stopping` (retryable;
  `details.done_before_stop`: how many actions were made, all taken back), while the journal is
  still open (an undo that fails, e.g. a file made since at a moved note's old path, is counted
  in `details.not_rolled_back` and the message says so, never "rolled back"): the stopping
  server waits for that (`Journal.drained`) before it closes the journal and its databases.
  Before, the stop closed the journal under the running commit: its next write and every undo
  failed, the client got `internal_error`, and the vault stayed half changed until the next
  start rolled the journal back.

`StepHook` is a seam for tests only: it is awaited at every step and lets a test hold the work
at a known point (`VaultgateApp(step_hook=...)`); production passes none.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

import anyio
import anyio.lowlevel

from service.errors import ServerStopping, VaultgateError
from service.types import ProgressFn
from service.vault.chunks import CHUNK, Chunk
from service.vault.journal import stop_requested

log = logging.getLogger(__name__)
T = TypeVar("T")

Phase = Literal["prepare", "commit"]
Undo = Callable[[], Awaitable[None]]
Action = Callable[[], Awaitable[Undo]]  # do one change; returns how to take it back

NOTIFICATIONS_PER_PHASE = 50  # progress is reported at most about this often per phase


class StepHook(Protocol):
    """Awaited at every step of a long change (tests only: hold the work at a known point)."""

    async def __call__(self, label: str, phase: Phase, done: int, total: int, /) -> None: ...


@dataclass
class Steps:
    """Progress and cancellation points of one long change.

    Progress counts items across both phases: the prepare phase reports `done` of its `total`
    items, the commit phase continues from there (`prepared + done` of `prepared + total`), so
    the values a client sees only grow and the last one equals the last total.
    """

    label: str
    report: ProgressFn | None = None
    hook: StepHook | None = None
    prepared: int = 0  # items the prepare phase went through (the commit phase counts on from here)

    async def step(self, phase: Phase, done: int, total: int) -> None:
        if phase == "prepare":
            await anyio.lowlevel.checkpoint()  # where a cancelled call stops
            self.prepared = total
            if _worth_reporting(done, total):
                await self._report(done, total, f"{self.label}: read {done}/{total} notes")
        elif _worth_reporting(done, total):
            await self._report(self.prepared + done, self.prepared + total, f"{self.label}: wrote {done}/{total} files")
        if self.hook is not None:
            await self.hook(self.label, phase, done, total)

    async def _report(self, done: int, total: int, message: str) -> None:
        if self.report is not None:
            await self.report(done, total, message)


def _worth_reporting(done: int, total: int) -> bool:
    """The first, the last and about every 1/NOTIFICATIONS_PER_PHASE-th item."""
    every = max(1, total // NOTIFICATIONS_PER_PHASE)
    return done in (1, total) or done % every == 0


async def prepare_step(steps: Steps | None, done: int, total: int) -> None:
    if steps is not None:
        await steps.step("prepare", done, total)


@dataclass(frozen=True)
class Together:
    """Actions on distinct files that do not depend on one another (a move's link rewrites):
    `commit` runs them `TOGETHER` at a time. Each stays its own atomic, journaled write; their
    fsyncs overlap, and the file system commits overlapping fsyncs together (one at a time cost
    7.7 ms a note on the project's test disk, eight at a time 0.5 ms each)."""

    actions: Sequence[Action]


TOGETHER = 8  # a chunk's size; the vault's write semaphore (`[vaults] writes.max_concurrent`) bounds it too


async def commit(
    actions: Sequence[Action | Together],
    steps: Steps | None = None,
    *,
    around: AbstractAsyncContextManager[None] | None = None,
) -> None:
    """Run every action, shielded from cancellation; on failure undo the done ones and re-raise.

    An action runs after the one before it has ended; a `Together`'s actions up to `TOGETHER` at a
    time, the next ones once all of those have ended. When one of them fails the others under way
    end first: every one that was done is undone, in the reverse of the order they ended.
    `around` wraps the actions inside the shield (the change bus's batch: the index follows the
    whole change once, and that delivery is never cut short either).
    """
    total = sum(len(a.actions) if isinstance(a, Together) else 1 for a in actions)
    with anyio.CancelScope(shield=True):
        async with around if around is not None else contextlib.nullcontext():
            undos: list[Undo] = []
            try:
                for item in actions:
                    group = item.actions if isinstance(item, Together) else (item,)
                    for first in range(0, len(group), TOGETHER if isinstance(item, Together) else 1):
                        if stop_requested():
                            raise ServerStopping(
                                "the server is stopping: the change was rolled back; call again once it is back",
                                details={"done_before_stop": len(undos), "total": total},
                            )
                        chunk = group[first : first + TOGETHER]
                        await (_run_chunk if isinstance(item, Together) else _run)(chunk, undos, steps, total)
            except BaseException as exc:
                failed = await _to_its_end(_rollback(undos))
                if failed and isinstance(exc, ServerStopping):  # it must not say the change was taken back
                    raise ServerStopping(
                        f"the server is stopping: the change stopped, and {failed} of the {len(undos)} file "
                        "change(s) it had made could not be put back (changed since)",
                        details={**exc.details, "not_rolled_back": failed},
                        hint="Look at the vault once the server is back: undo_last_plan lists what is left.",
                    ) from exc
                if failed and isinstance(exc, VaultgateError):  # e.g. a conflict: say what stayed changed
                    exc.details["not_rolled_back"] = failed
                    exc.hint = exc.hint or "Some changes could not be put back: undo_last_plan lists what is left."
                raise


async def _run(chunk: Sequence[Action], undos: list[Undo], steps: Steps | None, total: int) -> None:
    """`chunk`'s actions at once, each one's undo kept as it ends; the first failure is raised once
    all of them have ended (none is left running behind the rollback)."""
    failure: BaseException | None = None

    async def one(action: Action) -> None:
        nonlocal failure
        try:
            undos.append(await action())
            if steps is not None:
                await steps.step("commit", len(undos), total)
        except BaseException as exc:  # noqa: BLE001 - raised below, once the others have ended
            failure = failure or exc

    # plain tasks (an anyio task group's start cost a third of the loop's time per note), one action's
    # too: cancelled in its thread hop, its write went on and its undo was never kept
    await _all_ended([asyncio.ensure_future(one(action)) for action in chunk])
    if failure is not None:
        raise failure


async def _all_ended(tasks: Sequence[asyncio.Future[Any]]) -> None:
    """Wait until every one of `tasks` has ended, however often the caller is cancelled meanwhile (a
    cancellation is raised once they have): none is left running behind the rollback."""
    cancelled: BaseException | None = None
    pending = set(tasks)
    while pending:
        try:
            await asyncio.wait(pending)
        except asyncio.CancelledError as exc:
            cancelled = exc
        pending = {t for t in pending if not t.done()}  # a cancel each turn: those ended are not waited for again
    if cancelled is not None:
        raise cancelled


async def _to_its_end(work: Awaitable[T]) -> T:
    """`work` run to its end through any cancellation of the caller (raised after it): a rollback, a
    chunk's folder syncs. A second cancel (a client sending its cancel twice) stopped the rollback
    at its next undo, the vault left half changed until the next start."""
    task = asyncio.ensure_future(work)
    await _all_ended([task])
    return task.result()


async def _run_chunk(chunk: Sequence[Action], undos: list[Undo], steps: Steps | None, total: int) -> None:
    """`_run` of a `Together`'s chunk: its file changes on the writer threads, and each folder they
    renamed a file in fsynced once, when all of them have ended (`service.vault.chunks`)."""
    together = Chunk(_writers())
    token = CHUNK.set(together)  # the chunk's tasks start with it in their context
    try:
        await _run(chunk, undos, steps, total)
    except BaseException:
        CHUNK.reset(token)
        with contextlib.suppress(OSError):  # the write's own error is the one told
            await _to_its_end(_sync(together))
        raise
    CHUNK.reset(token)
    await _to_its_end(_sync(together))  # the renames made are on the disk before the next chunk and the answer


async def _sync(chunk: Chunk) -> None:
    await asyncio.get_running_loop().run_in_executor(chunk.threads, chunk.sync)


_threads: ThreadPoolExecutor | None = None
_threads_lock = threading.Lock()


def _writers() -> ThreadPoolExecutor:
    """The chunks' writer threads, one per write of a chunk (made at the first chunk, kept for the process)."""
    global _threads
    with _threads_lock:
        if _threads is None:
            _threads = ThreadPoolExecutor(TOGETHER, "vaultgate-write")
        return _threads


async def _rollback(undos: list[Undo]) -> int:
    """Undo the done actions, newest first; how many of them could not be undone."""
    failed = 0
    for undo in reversed(undos):
        try:
            await undo()
        except Exception:  # noqa: BLE001 - keep undoing the rest; the original error is re-raised
            failed += 1
            log.exception("rollback: one change could not be undone")
    return failed
