"""One `asyncio.Lock` per key (a vault and a file's path), made when first asked for and dropped
once nobody holds or waits for it: the read-modify-write of one file by one domain (memory entity
notes, the capture inbox, Obsidian's settings files) runs one call at a time. Each user keeps its
own `KeyedLocks`, so locks of different domains never wait for each other."""

from __future__ import annotations

import asyncio
import weakref


class KeyedLocks:
    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[tuple[str, str], asyncio.Lock] = weakref.WeakValueDictionary()

    def __call__(self, vault_id: str, rel: str) -> asyncio.Lock:
        lock = self._locks.get((vault_id, rel))
        if lock is None:
            lock = self._locks[(vault_id, rel)] = asyncio.Lock()
        return lock
