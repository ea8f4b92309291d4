"""Writes through vaultgate made while an index is being built, applied between its batches.

A first start indexes the whole vault in one reconcile (10k notes ~15-30 s, 100k 2-3 min),
which holds the apply lock throughout. A write made through vaultgate meanwhile used to be
applied only at the end of it, so for that long the agent that wrote could not find its note by
`search_text`, read it by an alias, or see its links in `get_backlinks`. Now the write's index
update (a group-commit round, `group.py`) is handed to the reconcile (`submit`), which applies
it the next time its writer would wait for parsed notes, or else after its next batch, and the
round ends there: the writer's next index read waits for that (`fresh.py`), not for the index.

Guarantees:
- answers still say `partial` until the index is ready: the rest of the vault is not in yet;
- a round that would replace the rows of more than `EARLY_MAX` notes the index holds already (a
  rewrite of many notes) is left to the end of the load, as every write was before (`later`):
  in a cold load the by-note indexes are deferred (`bulk.py`), and replacing an indexed note's
  rows scans their tables. Notes the index does not hold yet cost no such scan: a round of up to
  `ROUND_MAX` paths (`bulk_create_notes`, many new notes) is applied early when at most
  `EARLY_MAX` of them are indexed as it is applied (counted under the apply lock the load holds,
  between two of its batches, so none is stored meanwhile); a larger one waits for the end;
- the load's later batches leave out the paths applied early (its parse of them may predate the
  write: `leave_out`), and once an early write added or removed a file, the links of the batches
  parsed before are resolved again against the files as they are now (`reconcile.py`);
- on a load that defers the word index (a cold load) the early write's transaction keeps it
  exact: `words.WordCatchUp.around`; the trigram index stays deferred (its triggers do nothing
  then) and is rebuilt once after the load, as before;
- crash safety: each early write is one writer transaction; `deferred_indexes` is untouched, so
  a process that dies leaves the load as resumable as before (the next start restores the word
  triggers and rebuilds the word index from `note_text`, and reads the notes not stored yet);
- a reconcile that ends however (ready, failed, cancelled) hands back what it did not apply
  (`close`): `submit` answers False and the round is applied as usual, once the lock is free.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

from service.indexer.apply import apply_changes
from service.indexer.parse_worker import Batch
from service.indexer.state import IndexerState
from service.vault.events import FileChange

# Paths (a change's path and old path) of one round applied early that the index holds already
# (their rows replaced); a round replacing more waits for the end of the load. Agents' writes
# are a note or a few at a time.
EARLY_MAX = 32
# Paths of one round applied early at all (new notes beyond `EARLY_MAX`: one parse and one
# transaction of their rows, about what a load's batches of this many cost).
ROUND_MAX = 1000
_COUNT_CHUNK = 500  # paths per look-up of which are indexed: far below SQLite's parameter limit


def _paths(changes: Sequence[FileChange]) -> list[str]:
    return [p for c in changes for p in (c.path, c.old_path) if p is not None]


_Round = tuple[list[FileChange], "asyncio.Future[bool]"]


async def _indexed(ix: IndexerState, paths: Sequence[str]) -> int:
    """How many of `paths` the index holds a note of (its unique (vault, path) index: no scan)."""
    found = 0
    for at in range(0, len(paths), _COUNT_CHUNK):
        chunk = paths[at : at + _COUNT_CHUNK]
        sql = f"SELECT COUNT(*) FROM notes WHERE vault_id = ? AND path IN ({','.join('?' * len(chunk))})"
        row = await ix.db.fetchone(sql, (ix.vault.id, *chunk))
        found += int(row[0]) if row else 0
    return found


class EarlyWrites:
    def __init__(self) -> None:
        self.open = False  # a reconcile building the index takes rounds between its batches
        self.paths: set[str] = set()  # paths applied early by the reconcile under way
        self.rounds = 0  # rounds applied early (tests and reports)
        self.later: list[FileChange] = []  # rounds of too many paths: applied at the load's end
        self._inbox: list[_Round] = []
        self._arrived = asyncio.Event()

    @property
    def waiting(self) -> bool:
        return bool(self._inbox)

    @contextlib.asynccontextmanager
    async def taking(self, on: bool) -> AsyncIterator[EarlyWrites | None]:
        """A reconcile's span; `on`: it builds the index (not ready yet), so it takes the rounds
        made meanwhile (yields this), and hands back what it did not apply as it ends."""
        if not on:
            yield None
            return
        self.open, self.paths = True, set()
        try:
            yield self
        finally:
            self.close()

    def close(self) -> None:
        """The reconcile ends: what it did not apply is handed back to be applied as usual."""
        self.open = False
        taken, self._inbox = self._inbox, []
        for _, done in taken:
            if not done.done():
                done.set_result(False)

    async def submit(self, changes: Sequence[FileChange]) -> bool:
        """A group round's changes: True once applied by the reconcile (or, too many, left in
        `later` for its end); False when no reconcile takes them (apply them as usual)."""
        if not self.open:
            return False
        if len(_paths(changes)) > ROUND_MAX:
            self.later.extend(changes)
            return True
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._inbox.append((list(changes), done))
        self._arrived.set()
        return await done

    async def until(self, head: asyncio.Future[Any]) -> None:
        """Wait until `head` (the next parsed batch) is ready or a write arrives."""
        if self._inbox:
            return
        self._arrived.clear()
        arrival = asyncio.ensure_future(self._arrived.wait())
        try:
            await asyncio.wait({head, arrival}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            arrival.cancel()

    async def serve(self, ix: IndexerState, *, bulk_threshold: int, words: Any = None) -> None:
        """Apply the rounds waiting, together, under the apply lock the reconcile holds. `words`:
        the load's `WordCatchUp` when it defers the word index. A failure is the rounds' (their
        group commit logs it and re-reads later), not the load's."""
        taken, self._inbox = self._inbox, []
        if not taken:
            return
        try:
            taken = await self._not_replacing_many(ix, taken)
            changes = [c for part, _ in taken for c in part]
            if not changes:
                return
            effective = await apply_changes(
                ix,
                changes,
                only_if_changed=False,
                lock_held=True,
                # Never in bulk mode inside a load: its deferred trigram index is rebuilt after it.
                bulk_threshold=max(bulk_threshold, len(changes) + 1),
                wrap=words.around if words is not None else None,
            )
        except asyncio.CancelledError:
            self._inbox[:0] = taken  # `close` hands them back
            raise
        except Exception as exc:  # noqa: BLE001 - told to the rounds, which log it
            for _, done in taken:
                if not done.done():
                    done.set_exception(exc)
            return
        if words is not None:
            words.committed()
        self.paths.update(_paths(changes))
        self.paths.update(c.path for c in effective)
        self.rounds += 1
        for _, done in taken:
            if not done.done():
                done.set_result(True)

    async def _not_replacing_many(self, ix: IndexerState, taken: list[_Round]) -> list[_Round]:
        """The rounds to apply now: a round of more than `EARLY_MAX` paths goes to `later` (and
        ends) when more than `EARLY_MAX` of them are indexed already (counted now, under the
        apply lock the load holds: nothing is stored before the round is applied)."""
        kept: list[_Round] = []
        for changes, done in taken:
            paths = list(dict.fromkeys(_paths(changes)))
            if len(paths) > EARLY_MAX and await _indexed(ix, paths) > EARLY_MAX:
                self.later.extend(changes)
                if not done.done():
                    done.set_result(True)
                continue
            kept.append((changes, done))
        return kept

    async def drain(self, ix: IndexerState, *, bulk_threshold: int, lock_held: bool) -> None:
        """Apply what is left: by the reconcile before it says ready (`lock_held`; it takes no
        more rounds after this: no await between the last check and `close`), or after a
        failed one (its rounds were handed back, the `later` ones are applied here)."""
        while self.later or (lock_held and self._inbox):
            if lock_held:
                await self.serve(ix, bulk_threshold=bulk_threshold)
            changes, self.later = self.later, []
            if changes:
                await apply_changes(
                    ix, changes, only_if_changed=False, lock_held=lock_held, bulk_threshold=bulk_threshold
                )
        if lock_held:
            self.close()

    def leave_out(self, batch: list[str], parsed: Batch) -> tuple[list[str], Batch]:
        """A load's batch (its paths, and what was parsed of them) without the paths applied early."""
        if not self.paths:
            return batch, parsed
        mine, (prepared, touch, issues) = self.paths, parsed
        kept = ([p for p in prepared if p.path not in mine], [t for t in touch if t[0] not in mine])
        return [p for p in batch if p not in mine], (*kept, [i for i in issues if i.path not in mine])
