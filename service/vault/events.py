"""Change events for vault files, published by writes and by the watcher.

Listeners (the index, resource subscriptions) are awaited in order, so a write made through
vaultgate is visible to them before the tool call returns. A listener that raises is logged and
skipped: one broken consumer never fails a write.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
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

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    async def publish(self, changes: Sequence[FileChange]) -> None:
        if not changes:
            return
        for listener in list(self._listeners):
            try:
                await listener(changes)
            except Exception:
                log.exception("change listener %r failed", listener)
