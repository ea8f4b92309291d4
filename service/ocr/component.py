"""The OCR app component: the engine, the reader and the bulk jobs, built once by `service.app`.

Stopping it cancels the running jobs and stops the worker process.
"""

from __future__ import annotations

from service.activity import Activity
from service.ocr.bulk import OcrJobs
from service.ocr.engine import OcrEngine
from service.ocr.reading import OcrReader
from service.settings.ocr import OcrSettings
from service.storage.db import Database


class Ocr:
    name = "ocr"

    def __init__(self, settings: OcrSettings, db: Database, activity: Activity | None = None) -> None:
        self.settings = settings
        self.engine = OcrEngine(settings)
        self.reader = OcrReader(self.engine, db, settings.max_pdf_pages)
        self.jobs = OcrJobs(self.reader, db, activity)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        await self.jobs.stop()
        await self.engine.stop()
