"""A vault's notes and folders as one caller may read them, walked once for many requests.

`resources/list` pages through every note and path completion matches against every note or
folder; each walked the whole vault with every entry's ACL decision, once per page or keystroke
(100,000 notes: 0.2-0.4 s of walking alone, ~1 s with the decisions and sizes on a busy machine,
500 walks to list them all as resources). `Walked.entries` walks in a worker thread and keeps the
answer per (vault, caller) while no change is heard on the vault's change bus (a tool's write,
another program's through the watcher) and the ACL rules are not reloaded
(`PathGuard.rules_version`); a change heard during a walk makes the next request walk again. At
most `KEEP` callers are kept, each dropped `KEEP_S` after its last request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.types import PathGuard, Principal
    from service.vault.events import ChangeBus, FileChange
    from service.vault.vault import Vault

KEEP = 2  # callers whose walk is kept (100,000 notes: 18.6 MB each, tracemalloc)
KEEP_S = 60.0  # kept this long after the last request that used it


@dataclass(frozen=True, slots=True)
class Entries:
    notes: list[tuple[str, int]]  # (path, size) of each note, in walk order
    folders: list[str]


class Walked:
    def __init__(self, guard: PathGuard) -> None:
        self.guard = guard
        self._kept: dict[tuple[str, Principal], tuple[tuple[int, int], Entries, asyncio.TimerHandle]] = {}
        self._changes: dict[str, int] = {}  # vault id -> changes heard on its bus
        self._buses: dict[str, ChangeBus] = {}  # the bus heard for each vault (a reloaded vault has a new one)

    async def entries(self, vault: Vault, principal: Principal) -> Entries:
        self._hear(vault)
        key = (vault.id, principal)
        stamp = (self._changes[vault.id], self.guard.rules_version)  # before the walk: see the docstring
        kept = self._kept.get(key)
        if kept is not None and kept[0] == stamp:
            found = kept[1]
        else:
            found = await asyncio.to_thread(self._walk, vault, principal)
        self._forget(key)
        while len(self._kept) >= KEEP:
            self._forget(next(iter(self._kept)))  # the one kept longest
        self._kept[key] = (stamp, found, asyncio.get_running_loop().call_later(KEEP_S, self._forget, key))
        return found

    def _walk(self, vault: Vault, principal: Principal) -> Entries:
        guard = self.guard
        notes: list[tuple[str, int]] = []
        folders: list[str] = []
        # The read decision covers a symlink's target too: a link never shows a note its rules hide.
        for rel, entry in vault.files.walk(
            vault.paths.resolve("", allow_root=True), readable=lambda rel: guard.allows(principal, vault, rel, "read")
        ):
            if entry.is_dir():
                folders.append(rel)
            elif rel.lower().endswith(".md") and entry.is_file():
                try:
                    notes.append((rel, entry.stat().st_size))
                except OSError:  # deleted (or its link broken) since the folder was listed
                    continue
        return Entries(notes, folders)

    def _hear(self, vault: Vault) -> None:
        """Listen to the vault's bus from its first walk on (a vault added or reloaded at run time too)."""
        if self._buses.get(vault.id) is vault.bus:
            return
        self._buses[vault.id] = vault.bus
        self._changes[vault.id] = self._changes.get(vault.id, 0) + 1
        vault_id = vault.id

        async def changed(changes: Sequence[FileChange]) -> None:
            self._changes[vault_id] = self._changes.get(vault_id, 0) + 1

        vault.bus.subscribe(changed)

    def _forget(self, key: tuple[str, Principal]) -> None:
        kept = self._kept.pop(key, None)
        if kept is not None:
            kept[2].cancel()
