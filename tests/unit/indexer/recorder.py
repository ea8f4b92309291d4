"""For the watcher's tests: a listener on a vault's change bus that keeps what it heard, and a
count of the notes the index parses."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from service.indexer import rows
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


def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The path of every note the index parses from now on (`rows.prepare`), in order."""
    parsed: list[str] = []
    original = rows.prepare

    def counting(item: rows.NoteInput, *rest: Any) -> rows.Prepared:
        parsed.append(item.path)
        return original(item, *rest)

    monkeypatch.setattr(rows, "prepare", counting)
    return parsed
