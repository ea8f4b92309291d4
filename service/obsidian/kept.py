"""Obsidian's settings files kept parsed between the pages of a listing (`KeptFiles`).

list_bookmarks and get_workspace list a long `.obsidian/*.json` by pages. Parsing and walking a
bookmarks.json of 100,000 items cost ~0.7 s of CPU on every page, holding the GIL (another
client's call waited ~1 s meanwhile); a next page of a file that did not change now reuses what
the page before made of it.

One entry per (vault, file name): the file's version (its etag), the parsed JSON, and what a
page made of it for one `view` (the bookmarks a caller sees depend on the ACL: the view names
it). A version is known again by the file's `Settled` key (device, inode, size, mtime and ctime
in nanoseconds, `service.vault.settled`) without a byte read: a write that keeps the size and sets
the mtime back still moves the ctime, which no caller can set back. A key taken less than
`RACY_NS` after the file's last change is not trusted (None): the bytes are read again and the
version known by their etag. Nothing else names an entry, so a page never mixes two versions:
what it lists, its `total` and its `etag` are of one version of the file.

Bounded: one entry per (vault, file); an entry is dropped as soon as a page finds another
version (before that version is parsed: one version held at a time) and once it has not been used
for `idle_s` (`release_memory`, run by the heap trimmer each minute). An entry's parts are shared by
every page that finds its version, in any thread: nobody changes them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from service.vault.settled import Settled

IDLE_S = 60.0  # an entry unused this long is dropped (a client paging reads a page well within it)


@dataclass(slots=True)
class Kept:
    """One version of one file: its key (None: not settled), etag, parsed JSON, and what a page
    made of it for one view, (view, value): replaced as one, so a reader never pairs one view's
    value with another view."""

    key: Settled | None
    etag: str
    data: Any
    made: tuple[Hashable, Any]
    used: float = field(default=0.0)


class KeptFiles:
    """The parsed settings files of the last pages listed, one per (vault, file name)."""

    def __init__(self, idle_s: float = IDLE_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_s = idle_s
        self._clock = clock
        self._lock = threading.Lock()
        self._kept: dict[tuple[str, str], Kept] = {}

    def by_key(self, vault: str, name: str, key: Settled) -> Kept | None:
        """The entry of the version whose settled key is `key` (None: none, or another version)."""
        with self._lock:
            kept = self._kept.get((vault, name))
            if kept is None or kept.key is None or kept.key != key:
                return None
            kept.used = self._clock()
            return kept

    def by_etag(self, vault: str, name: str, etag: str, key: Settled | None) -> Kept | None:
        """The entry of the version `etag` (its key now `key`); an entry of another version is
        dropped at once, before the caller parses the new one."""
        with self._lock:
            kept = self._kept.get((vault, name))
            if kept is None:
                return None
            if kept.etag != etag:
                del self._kept[(vault, name)]
                return None
            kept.key, kept.used = key, self._clock()
            return kept

    def keep(self, vault: str, name: str, kept: Kept) -> None:
        kept.used = self._clock()
        with self._lock:
            self._kept[(vault, name)] = kept

    def release_idle(self) -> int:
        """Drop the entries unused for `idle_s`; how many were dropped."""
        now = self._clock()
        with self._lock:
            idle = [k for k, kept in self._kept.items() if now - kept.used >= self.idle_s]
            for k in idle:
                del self._kept[k]
        return len(idle)

    async def release_memory(self) -> None:
        """`release_idle`, as the heap trimmer calls its `release` functions each minute."""
        self.release_idle()

    def __len__(self) -> int:
        return len(self._kept)
