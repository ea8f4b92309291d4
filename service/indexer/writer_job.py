"""One write the indexer runs in the background once calls pause: the trigram rebuild after a
bulk load (`bulk.rebuild_trigram`), the word index's merge (`bulk.merge_words`).

`WriterJob.ask()` starts the job unless a run is under way. A run waits for a pause in the calls
(`Activity.quiet`, at most `wait_s`: the write holds the index's single writer, and every write's
index update would wait behind it), then runs its write in one writer transaction. Asked again
while a run is under way, the job runs once more after it: the run's transaction may have come
before what asked again (a second bulk load, writes that left new segments), so one run never
covers a request made after it began. A failed run is logged and ends the job; the next `ask`
starts afresh, and what depends on the job works without it (regex search scans without the
trigram prefilter; searches read the word index's segments as they are). `cancel` (the
indexer's stop, a reconcile that defers the trigram index again) ends a run wherever it is,
waiting for the pause or in its write.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from service.activity import Activity
from service.storage.db import Database
from service.tasks import cancel_and_wait

log = logging.getLogger(__name__)


class WriterJob:
    def __init__(
        self,
        db: Database,
        activity: Activity | None,
        name: str,
        write: Callable[[Any], object],
        *,
        wait_s: float,
        failed: str,
        done: Callable[[], None] | None = None,
    ) -> None:
        """`write` runs on the writer's connection; `failed` is logged (with the traceback) when a
        run fails; `done` is called after a run that no later `ask` came during."""
        self.db = db
        self.activity = activity  # None: calls are not counted, the job runs at once
        self.name = name
        self.write = write
        self.wait_s = wait_s
        self.failed = failed
        self.done = done
        self.task: asyncio.Task[None] | None = None
        self.runs = 0  # writes completed (for tests and reports)
        self._again = False

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def ask(self) -> None:
        """Run the job in the background, or once more after the run under way."""
        if self.running:
            self._again = True
            return
        self._again = False
        self.task = asyncio.create_task(self._run(), name=self.name)

    async def settled(self) -> None:
        """Return once no run is under way (whatever its outcome)."""
        while self.task is not None and not self.task.done():
            await asyncio.wait({self.task})

    async def cancel(self) -> None:
        """End the run under way, if any, and forget a request to run again."""
        self._again = False
        if self.task is not None:
            await cancel_and_wait(self.task)

    async def _run(self) -> None:
        try:
            while True:
                if self.activity is not None:
                    await self.activity.quiet(within=self.wait_s)
                self._again = False  # what asked while the run waited is covered by its write
                await self.db.run_write(self.write)
                self.runs += 1
                if not self._again:
                    break
        except Exception:
            log.exception("%s failed; %s", self.name, self.failed)
            return
        if self.done is not None:
            self.done()
