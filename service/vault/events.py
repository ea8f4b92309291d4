"""Change events for vault files, published by writes and by the watcher.

Listeners (the index, resource subscriptions) are awaited in order, so a write made through
vaultgate is visible to them before the tool call returns. A listener that raises is logged and
skipped: one broken consumer never fails a write. Inside `batch()` (one task's multi-file
operation, such as a move that rewrites a thousand notes) changes are collected and delivered
together, in order, when the block ends: the index applies them in one transaction instead of
one per file. `holds(path)` says whether an open batch will deliver a change that has the index
read `path` from disk when it ends (the file watcher drops its events for such a path at once:
`service.indexer.watch`).
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


def written(kind: Literal["created", "modified"], rel: str, real_rel: str) -> list[FileChange]:
    """A write's change as its caller names the note, plus the symlink target's own path when they differ."""
    return [FileChange(kind, rel), *([FileChange(kind, real_rel)] if real_rel != rel else [])]


Listener = Callable[[Sequence[FileChange]], Awaitable[None]]


class _Held:
    """One open batch: its changes in order, and per path whether its last change leaves a file
    there that the index reads when the batch is delivered (False: deleted, or moved away)."""

    __slots__ = ("changes", "reads")

    def __init__(self) -> None:
        self.changes: list[FileChange] = []
        self.reads: dict[str, bool] = {}

    def extend(self, changes: Sequence[FileChange]) -> None:
        self.changes.extend(changes)
        for change in changes:
            if change.old_path is not None:
                self.reads[change.old_path] = False
            self.reads[change.path] = change.kind != "deleted"


class ChangeBus:
    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        # Changes held back by `batch()` in the current task (None: deliver at once).
        self._held: ContextVar[_Held | None] = ContextVar(f"held-{id(self)}", default=None)
        self._open: list[_Held] = []  # every batch not delivered yet, of any task (`holds`)

    @contextlib.asynccontextmanager
    async def batch(self) -> AsyncIterator[None]:
        """Collect this task's changes and deliver them once, when the block ends (also when it
        raises: what was written, or rolled back, must still reach the listeners)."""
        if self._held.get() is not None:  # already batching: the outer block delivers
            yield
            return
        held = _Held()
        token = self._held.set(held)
        self._open.append(held)
        try:
            yield
        finally:
            self._held.reset(token)
            try:
                await self.publish(held.changes)
            finally:  # only now: the index's listener has queued its reading of them (`holds`)
                self._open.remove(held)

    def holds(self, path: str) -> bool:
        """Whether a batch not delivered yet holds a change of `path` that leaves a file there:
        once delivered, the index reads `path` from disk (`VaultIndexer._on_changes`), later than
        now, so whatever another program wrote to it before now is what it indexes. Nothing is
        read: a lookup per open batch (the event loop's thread only)."""
        return any(held.reads.get(path, False) for held in self._open)

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
