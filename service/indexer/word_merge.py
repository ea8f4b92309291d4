"""The word index's merge as a background task of the indexer (`service.storage.word_index`).

`WordIndexMerge.ask()` starts the merge unless one is under way (that one covers the request):
it waits for a pause in the calls (`Activity.quiet`, at most `wait_s`; the merge holds the
index's writer, as the trigram rebuild does), then merges when the word index has more than a
few segments. A failure is logged; searches read the segments as they are.
"""

from __future__ import annotations

import asyncio
import logging

from service.activity import Activity
from service.storage.db import Database
from service.storage.word_index import compact_words

log = logging.getLogger(__name__)


class WordIndexMerge:
    def __init__(self, db: Database, activity: Activity | None, name: str, wait_s: float) -> None:
        self.db = db
        self.activity = activity
        self.name = name
        self.wait_s = wait_s
        self.task: asyncio.Task[None] | None = None

    def ask(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run(), name=f"{self.name}:merge")

    async def _run(self) -> None:
        try:
            if self.activity is not None:
                await self.activity.quiet(within=self.wait_s)
            await self.db.run_write(compact_words)
        except Exception:
            log.exception("merging the word index of %s failed; searches read its segments as they are", self.name)
