"""Index updates that failed, and the re-reading that brings them in once it can.

An incremental update (a write's round in `group.py`, a batch of the watcher's in `watch.py`)
that fails for a reason other than another process's lock — the cache disk full or read-only,
the database file unwritable — was logged and dropped: its notes stayed as the index had them
until the next start, and index_status kept answering healthy with no backlog. `CatchUp` keeps
the paths of those updates (`missed`, shown as backlog, health degraded) and why (`error`), and
re-reads the vault (a reconcile: only files whose mtime or size differ from the index are read)
after a pause, doubling up to `MAX_PAUSE_S` while it fails, until one goes through. A failure
seen while a re-reading runs starts one more after it, so nothing missed is forgotten; while
failures keep coming the pause keeps doubling (a whole-vault walk per save of a file that fails
every time would cost a walk per save).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable

from service.tasks import cancel_and_wait

log = logging.getLogger("vaultgate.index")
FIRST_PAUSE_S = 2.0
MAX_PAUSE_S = 60.0
MAX_PATHS = 10_000  # paths kept for the count; past it the count says "at least"


class CatchUp:
    def __init__(self, reconcile: Callable[[], Awaitable[object]], name: str) -> None:
        self._reconcile = reconcile
        self._name = name
        self._paths: set[str] = set()
        self._failures = 0  # failed updates so far: a re-reading clears only what came before it
        self._task: asyncio.Task[None] | None = None
        self.error: str | None = None

    @property
    def missed(self) -> int:
        """Files whose failed update no re-reading has brought in yet."""
        return len(self._paths) or (1 if self.error is not None else 0)

    def failed(self, paths: Iterable[str], exc: BaseException) -> None:
        """An update of `paths` failed with `exc`: count it, and re-read the vault soon."""
        for path in paths:
            if len(self._paths) >= MAX_PATHS:
                break
            self._paths.add(path)
        self._failures += 1
        self.error = f"index update failed, retrying: {type(exc).__name__}: {exc}"
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._retry(), name=f"{self._name}:catch-up")

    async def _retry(self) -> None:
        pause = FIRST_PAUSE_S
        while self.error is not None:
            await asyncio.sleep(pause)
            seen = self._failures
            try:
                await self._reconcile()
            except Exception as exc:  # noqa: BLE001 - still failing: wait longer, try again
                log.warning("re-reading %s after a failed index update: %s", self._name, exc)
                self.error = f"index update failed, retrying: {type(exc).__name__}: {exc}"
                pause = min(pause * 2, MAX_PAUSE_S)
                continue
            if self._failures == seen:  # nothing failed meanwhile: everything missed is in
                self._paths.clear()
                self.error = None
            else:  # failing again (a file that fails on every save): re-read less often, not per save
                pause = min(pause * 2, MAX_PAUSE_S)

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
