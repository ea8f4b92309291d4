"""Change events for vault files, published by writes and by the watcher.

Listeners (the index, resource subscriptions) are awaited in order, so a write made through
vaultgate is visible to them before the tool call returns. A listener that raises is logged and
skipped: one broken consumer never fails a write. Inside `batch()` (one task's multi-file
operation, such as a move that rewrites a thousand notes) changes are collected and delivered
together, in order, when the block ends: the index applies them in one transaction instead of
one per file.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

log = logging.getLogger(__name__)

ChangeKind = Literal["created", "modified", "deleted", "moved"]


@dataclass(frozen=True, slots=True)
class FileChange:
    kind: ChangeKind
    path: str  # vault-relative POSIX path (the new path for moves)
    old_path: str | None = None
    origin: Literal["vaultgate", "external"] = "vaultgate"


Listener = Callable[[Sequence[FileChange]], Awaitable[None]]


class ChangeBus:
    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        # Changes held back by `batch()` in the current task (None: deliver at once).
        self._held: ContextVar[list[FileChange] | None] = ContextVar(f"held-{id(self)}", default=None)

    @contextlib.asynccontextmanager
    async def batch(self) -> AsyncIterator[None]:
        """Collect this task's changes and deliver them once, when the block ends (also when it
        raises: what was written, or rolled back, must still reach the listeners)."""
        if self._held.get() is not None:  # already batching: the outer block delivers
            yield
            return
        held: list[FileChange] = []
        token = self._held.set(held)
        try:
            yield
        finally:
            self._held.reset(token)
            await self.publish(held)

    def subscribe(self, listener: Listener, *, first: bool = False) -> None:
        """`first`: hear of every change before the listeners there are (the index: its update
        is queued before another listener's await lets other tasks run, e.g. the watcher's)."""
        if first:
            self._listeners.insert(0, listener)
        else:
            self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    async def publish(self, changes: Sequence[FileChange]) -> None:
        if not changes:
            return
        held = self._held.get()
        if held is not None:
            held.extend(changes)
            return
        for listener in list(self._listeners):
            try:
                await listener(changes)
            except Exception:
                log.exception("change listener %r failed", listener)
