"""The OCR app component: the engine, the reader and the bulk jobs, built once by `service.app`
(the reader and the jobs at their first use: a server that reads no image never imports them).

Stopping it cancels the running jobs and stops the worker process.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from service.activity import Activity
from service.ocr.engine import OcrEngine
from service.settings.ocr import OcrSettings
from service.storage.db import Database

if TYPE_CHECKING:  # the reader and the bulk jobs load at their first use, not with the server
    from service.ocr.bulk import OcrJobs
    from service.ocr.reading import OcrReader


class Ocr:
    name = "ocr"

    def __init__(self, settings: OcrSettings, db: Database, activity: Activity | None = None) -> None:
        self.settings = settings
        self.engine = OcrEngine(settings)
        self._db = db
        self._activity = activity

    @cached_property
    def reader(self) -> OcrReader:
        from service.ocr.reading import OcrReader

        return OcrReader(self.engine, self._db, self.settings.max_pdf_pages)

    @cached_property
    def jobs(self) -> OcrJobs:
        from service.ocr.bulk import OcrJobs

        return OcrJobs(self.reader, self._db, self._activity)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        if "jobs" in self.__dict__:  # none was ever started otherwise
            await self.jobs.stop()
        await self.engine.stop()
