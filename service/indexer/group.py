"""Group commit: the changes of concurrent writers reach the index together.

Every write through vaultgate waits until its change is in the index (a search right after it
finds it). Applied one by one, 32 agents writing at once queue behind one lock, each paying a
transaction, three worker-thread hops and a wake-up of its own. Here the first writer starts a
drain task that applies what is queued; whoever arrives while it runs is applied with the next
round, all in one `apply` (one transaction, one read of the files, one link re-resolution).
A writer's wait is shielded: a cancelled call still gets its change indexed, by the drain task.
When a round fails, its writers' changes are applied again one submission at a time, so one
unreadable note cannot keep the others out of the index (failures are logged, as before: a
write that reached the disk is never reported failed because of its index update).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence

from service.vault.events import FileChange

log = logging.getLogger("vaultgate.index")
Apply = Callable[[Sequence[FileChange]], Awaitable[object]]


class GroupCommit:
    def __init__(self, apply: Apply, name: str) -> None:
        self._apply = apply
        self._name = name
        self._queue: list[tuple[list[FileChange], asyncio.Future[None]]] = []
        self._task: asyncio.Task[None] | None = None
        self.rounds = 0  # how many applies served how many submissions: see `submitted`
        self.submitted = 0

    async def submit(self, changes: Sequence[FileChange]) -> None:
        """Return once `changes` are in the index (or their apply failed and was logged)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((list(changes), done))
        self.submitted += 1
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain(), name=f"{self._name}:group-commit")
        await asyncio.shield(done)

    async def _drain(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            self.rounds += 1
            try:
                await self._round(batch)
            finally:
                for _, done in batch:
                    if not done.done():
                        done.set_result(None)

    async def _round(self, batch: list[tuple[list[FileChange], asyncio.Future[None]]]) -> None:
        try:
            await self._apply([change for changes, _ in batch for change in changes])
            return
        except Exception:
            if len(batch) == 1:
                log.exception("index update of %s failed", self._name)
                return
        for changes, done in batch:
            try:
                await self._apply(changes)
            except Exception:
                log.exception("index update of %s failed for %s", self._name, [c.path for c in changes])
            done.set_result(None)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        for _, done in self._queue:
            if not done.done():
                done.set_result(None)
        self._queue = []
