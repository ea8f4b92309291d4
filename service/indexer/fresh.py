"""Read-your-writes: the index updates a caller has been acknowledged and not seen yet.

A write through vaultgate is acknowledged once its file is durable; its index update is queued
(`group.GroupCommit`). For the caller that wrote, the index must still look up to date: a
search right after a write finds it. A `Mark` is one caller's claim on the index: per vault, the
sequence number of the last index update its writes queued. The dispatch chain makes the
caller's mark `current` for the length of a call (`service.dispatch.own_writes`; nested calls,
plan steps and tasks started by the call share it), the indexer records in it the number of
every update the call queues, and a call that reads the index first waits, in `settle`, until
the vault's indexer has applied that number. Other callers do not wait for it: they see the
write once its round has committed (a few milliseconds to a round's length later).

An in-process call with no client behind it (an embedding program, a test) gets a mark that
owes it every update queued before the call began, and its own writes wait for their index
updates before they return, as every write did before; so does a write made outside any call
(a start-up recovery).

Touches: nothing but memory; the marks of the last `MAX_CALLERS` callers are kept, and one that
is dropped leaves its numbers as a floor every new mark starts from (a caller never loses a
claim, it may only wait for more than its own writes).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from contextvars import ContextVar
from typing import Protocol

from service.errors import IndexUnavailable

MAX_CALLERS = 4096
SETTLE_S = 30.0  # past this, a call that must see its writes fails `index_unavailable` (retryable)


class Applied(Protocol):
    """What `settle` needs of a vault's indexer (`runner.VaultIndexer`)."""

    @property
    def name(self) -> str: ...

    @property
    def vault_id(self) -> str: ...

    @property
    def applied_seq(self) -> int: ...

    async def caught_up(self, seq: int) -> None: ...


class Mark:
    """One caller's claim: vault id → sequence number of its last queued index update.
    `queue` False: the caller's writes wait for their index updates instead of queueing them."""

    __slots__ = ("queue", "seqs")

    def __init__(self, seqs: dict[str, int] | None = None, *, queue: bool = True) -> None:
        self.seqs = seqs or {}
        self.queue = queue

    def owe(self, vault_id: str, seq: int) -> None:
        if seq > self.seqs.get(vault_id, 0):
            self.seqs[vault_id] = seq


current: ContextVar[Mark | None] = ContextVar("vaultgate-own-writes", default=None)


class Marks:
    """The marks of recent callers, by a caller key the dispatch chain derives."""

    def __init__(self, limit: int = MAX_CALLERS) -> None:
        self._marks: OrderedDict[object, Mark] = OrderedDict()
        self._floor: dict[str, int] = {}
        self._limit = limit

    def of(self, key: object) -> Mark:
        mark = self._marks.get(key)
        if mark is not None:
            self._marks.move_to_end(key)
            return mark
        mark = self._marks[key] = Mark(dict(self._floor))
        while len(self._marks) > self._limit:
            _, dropped = self._marks.popitem(last=False)
            for vault_id, seq in dropped.seqs.items():
                if seq > self._floor.get(vault_id, 0):
                    self._floor[vault_id] = seq
        return mark

    def __len__(self) -> int:
        return len(self._marks)


async def settle(indexer: Applied, within: float = SETTLE_S) -> None:
    """Wait until `indexer` holds every update the current caller's writes queued (at once when
    there is no current mark or nothing is owed)."""
    mark = current.get()
    await applied_up_to(indexer, mark.seqs.get(indexer.vault_id, 0) if mark is not None else 0, within)


async def applied_up_to(indexer: Applied, seq: int, within: float) -> None:
    """Wait until `indexer` has applied its updates up to `seq` (at once when it has); past
    `within`, `index_unavailable` (retryable): the writes are on disk, their index update queued."""
    if seq <= indexer.applied_seq:
        return
    try:
        await asyncio.wait_for(indexer.caught_up(seq), within)
    except TimeoutError:
        raise IndexUnavailable(
            f"the index update of an earlier write is still queued after {within:.0f} s ({indexer.name})",
            details={"vault": indexer.vault_id, "queued_seq": seq},
            hint="The writes are on disk; retry the call when index_status reports no backlog.",
        ) from None
