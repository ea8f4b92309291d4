"""The writes of one chunk of a multi-file change: their own threads, their folders synced once.

`service.vault.commit` runs a `Together`'s actions (a move's link rewrites) a chunk at a time and
sets `CHUNK` around each chunk. Inside it, `VaultFiles.write`:

- makes its file change (`_write_sync`: journal record, temp file, fsync, rename) on the chunk's
  writer threads (`in_thread`; `Chunk.threads`, as many as a chunk holds), not on the default pool
  the reads, searches and index updates of every other caller share: with six default threads
  (a 2-core machine) two of a chunk of eight waited for a thread, and a read waited behind the
  chunk;
- leaves the fsync of the folder it renamed the temp file in to the chunk (`defer_sync`): the
  chunk fsyncs each folder once when all of its writes have ended (`sync`), before the next chunk
  starts and before the change answers. Eight notes of one folder cost one folder fsync, not eight.

What a write guarantees against a kill is unchanged: the journal record before the temp file, the
temp file fsynced before it is renamed over the note, so each note is old or new, never torn, and
the next start rolls the change back from the journal. Only the moment the renames themselves are
on the disk (what a power loss, not a kill, can take back) moves, from each write's end to its
chunk's end, still before the next chunk and the answer. Outside a chunk (`CHUNK` unset: a single
write, an undo, a rollback) every write syncs its own folder before it returns, as before.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from contextvars import ContextVar
from functools import partial
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class Chunk:
    """One chunk's writes in flight: the threads they run on and the folders they renamed into.
    `defer_sync` is called from those threads; `sync` once they have all ended."""

    def __init__(self, threads: Executor) -> None:
        self.threads = threads
        self._folders: dict[tuple[int, int], int] = {}  # (device, inode) -> a descriptor of the folder
        self._lock = threading.Lock()

    def defer_sync(self, folder_fd: int) -> None:
        """Keep the folder open (`folder_fd` is closed by its writer) to be fsynced by `sync`; once per folder."""
        st = os.fstat(folder_fd)
        with self._lock:
            if (st.st_dev, st.st_ino) not in self._folders:
                self._folders[st.st_dev, st.st_ino] = os.dup(folder_fd)

    def sync(self) -> int:
        """fsync every folder the chunk renamed a file in, and close them (worker thread); how many
        there were. The first error is raised once every folder was tried and closed."""
        with self._lock:
            fds, self._folders = list(self._folders.values()), {}
        error: OSError | None = None
        for fd in fds:
            try:
                os.fsync(fd)
            except OSError as exc:
                error = error or exc
            finally:
                os.close(fd)
        if error is not None:
            raise error
        return len(fds)


CHUNK: ContextVar[Chunk | None] = ContextVar("vaultgate_write_chunk", default=None)


def folder_sync() -> Callable[[int], None] | None:
    """What a write in this context does with the folder it renamed into instead of fsyncing it
    (None: fsync it now). Called in the worker thread (it runs in a copy of the caller's context)."""
    chunk = CHUNK.get()
    return None if chunk is None else chunk.defer_sync


async def in_thread(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`fn(*args, **kwargs)` in a worker thread with the caller's context (the journal's recorder,
    `CHUNK`): a chunk's writer thread inside a chunk, the default pool (`asyncio.to_thread`) outside."""
    chunk = CHUNK.get()
    if chunk is None:
        return await asyncio.to_thread(fn, *args, **kwargs)
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(chunk.threads, partial(context.run, fn, *args, **kwargs))
