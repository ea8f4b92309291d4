"""Group commit: the index updates of writes, queued, numbered and applied in shared rounds.

A write through vaultgate is acknowledged once its file is durable; its index update is queued
here (`enqueue`, which returns the update's sequence number) and applied by a drain task: the
first update starts it, and whatever is queued while a round runs goes into the next round, all
in one `apply` (one transaction, one read of the files, one link re-resolution). `applied` is
the highest sequence number whose round has finished; `wait_applied(seq)` waits for it without
sleeping (how a caller's later search sees its own writes: `service.indexer.fresh`). `submit`
is enqueue-and-wait, for writers that must not return before the index has their change.

When a round fails, its updates are applied again one submission at a time, so one unreadable
note cannot keep the others out of the index; failures are logged and still count as applied (a
write that reached the disk is never reported failed because of its index update, and nobody
waits forever); their paths go to `catch_up.CatchUp`, which re-reads the vault until they are
in and shows them in index_status meanwhile. An update that never ran (a crash, a stop past the bound) is not lost: the
file is on disk, and the start-up reconcile indexes it by its mtime and size.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence

from service.tasks import cancel_and_wait
from service.vault.events import FileChange

log = logging.getLogger("vaultgate.index")
Apply = Callable[[Sequence[FileChange]], Awaitable[object]]
Failed = Callable[[list[str], BaseException], None]
STOP_DRAIN_S = 10.0  # at stop, queued updates get this long to land (else the next reconcile does it)


class GroupCommit:
    def __init__(self, apply: Apply, name: str, failed: Failed | None = None) -> None:
        self._apply = apply
        self._name = name
        self._failed = failed  # told the paths of a failed update (`catch_up.CatchUp.failed`)
        self._queue: list[tuple[int, list[FileChange]]] = []
        self._waiting: Counter[str] = Counter()  # paths of queued updates no round has taken yet
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Condition()
        self.queued = 0  # sequence number of the last update enqueued
        self.applied = 0  # every update up to this sequence number is in the index (or failed, logged)
        self.rounds = 0  # how many applies served how many submissions: see `submitted`
        self.submitted = 0

    @property
    def pending(self) -> int:
        """Updates enqueued and not applied yet (the index's lag behind acknowledged writes)."""
        return self.queued - self.applied

    def enqueue(self, changes: Sequence[FileChange]) -> int:
        """Queue `changes` for the next round; returns their sequence number (no waiting)."""
        self.queued += 1
        self.submitted += 1
        self._queue.append((self.queued, list(changes)))
        self._waiting.update(_paths(changes))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain(), name=f"{self._name}:group-commit")
        return self.queued

    def will_read(self, path: str) -> bool:
        """Whether a queued round that has not started yet will read `path` from disk (so an
        edit of it seen now by the watcher is indexed by that round anyway)."""
        return path in self._waiting

    async def submit(self, changes: Sequence[FileChange]) -> None:
        """Return once `changes` are in the index (or their apply failed and was logged). The
        wait is shielded: a cancelled writer's change is still applied by the drain task."""
        await asyncio.shield(self.wait_applied(self.enqueue(changes)))

    async def wait_applied(self, seq: int) -> None:
        """Return once every update up to `seq` has been applied."""
        if self.applied >= seq:
            return
        async with self._changed:
            await self._changed.wait_for(lambda: self.applied >= seq)

    async def _drain(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            self._waiting.subtract(p for _, changes in batch for p in _paths(changes))
            self._waiting += Counter()  # drop the paths at zero
            self.rounds += 1
            try:
                await self._round([changes for _, changes in batch])
            finally:
                async with self._changed:
                    self.applied = max(self.applied, batch[-1][0])
                    self._changed.notify_all()

    async def _round(self, batch: list[list[FileChange]]) -> None:
        try:
            await self._apply([change for changes in batch for change in changes])
            return
        except Exception as exc:
            if len(batch) == 1:
                log.exception("index update of %s failed", self._name)
                self._tell(batch[0], exc)
                return
        for changes in batch:
            try:
                await self._apply(changes)
            except Exception as exc:
                log.exception("index update of %s failed for %s", self._name, [c.path for c in changes])
                self._tell(changes, exc)

    def _tell(self, changes: Sequence[FileChange], exc: BaseException) -> None:
        if self._failed is not None:
            self._failed(_paths(changes), exc)

    async def stop(self) -> None:
        """Let the queued updates land (bounded), then stop; what is left is the reconcile's."""
        if self._task is not None and not self._task.done():
            with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(self._task), STOP_DRAIN_S)
            await cancel_and_wait(self._task)
        self._queue = []
        self._waiting.clear()
        async with self._changed:
            self.applied = self.queued  # nobody waits on a stopped indexer
            self._changed.notify_all()


def _paths(changes: Iterable[FileChange]) -> list[str]:
    return [p for c in changes for p in (c.path, c.old_path) if p is not None]
