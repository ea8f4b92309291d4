"""The files vaultgate itself wrote, as they were when their index update was queued.

The watcher sees vaultgate's own writes as file events. A write's index update is queued for the
next group-commit round (`group.GroupCommit`), and a round reads its files only when it starts,
so the file as it was at the moment of queueing (or a later state of it) is what reaches the
index. An event for a file that still has that state is therefore already taken care of; before,
one that came while the round ran (or after it) was applied again: under 32 agents over HTTP
(`bench_mixed`) about a quarter of the files the index applied were such repeats, each batch
holding the index's apply lock while the queued writes' round waited behind it (80 ms on
average per round).

`OwnFiles` remembers, per vault path, the (mtime, size, inode) of the file when vaultgate queued
its update (one `stat`), for the last `LIMIT` files. `unchanged(path)` stats the file again
and answers whether it is still in that state; only paths in the record are ever stat'ed, so a
watcher batch of thousands of external changes costs nothing here. The test is the one
`only_if_changed` applies to the index (mtime and size), with the inode added: an edit by
another program within the file system's timestamp granularity that keeps the size exactly is
taken for ours, and the next change to that note (or the start-up reconcile) indexes it.

Touches: `os.stat` of vault files, memory (a few hundred bytes per remembered file).
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path

LIMIT = 4096  # files remembered; an event for an older one is applied as before (only_if_changed)
State = tuple[int, int, int]


def _state(path: Path) -> State | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class OwnFiles:
    def __init__(self, root: Path, limit: int = LIMIT) -> None:
        self.root = root
        self.limit = limit
        self._states: OrderedDict[str, State] = OrderedDict()

    def __len__(self) -> int:
        return len(self._states)

    def queued(self, paths: Iterable[str]) -> None:
        """Record the state of `paths` now: their index update has just been queued."""
        for rel in paths:
            state = _state(self.root / rel)
            if state is None:
                self._states.pop(rel, None)
                continue
            self._states[rel] = state
            self._states.move_to_end(rel)
        while len(self._states) > self.limit:
            self._states.popitem(last=False)

    def unchanged(self, rel: str) -> bool:
        """Whether the file at `rel` is as it was when vaultgate last queued its update."""
        known = self._states.get(rel)
        return known is not None and _state(self.root / rel) == known
