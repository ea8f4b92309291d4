"""A listener on a vault's change bus that keeps what it heard, for the watcher's tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from service.vault.events import FileChange

WITHIN = 60.0  # a generous bound on any wait (a loaded machine): never a timing assertion


class Recorder:
    """Collects bus events; `until(pred)` waits (bounded) for an event matching pred."""

    def __init__(self) -> None:
        self.seen: list[FileChange] = []
        self._changed = asyncio.Condition()

    async def __call__(self, changes: Sequence[FileChange]) -> None:
        async with self._changed:
            self.seen.extend(changes)
            self._changed.notify_all()

    async def until(self, pred: Callable[[FileChange], bool]) -> None:
        async def wait() -> None:
            async with self._changed:
                await self._changed.wait_for(lambda: any(pred(c) for c in self.seen))

        await asyncio.wait_for(wait(), WITHIN)
