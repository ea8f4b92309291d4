"""The OCR engine as the server sees it: one worker process, one unit of work at a time, each
bounded in time.

The recognizer runs in a process of its own (`service.ocr.worker`, started with `spawn` at the
first image and stopped after `[ocr] idle_s` without work): onnxruntime's inference cannot be
interrupted from outside, so the only real bound on the time of one image or PDF page is
stopping the process that works on it. Past `timeout_s` the worker is killed and the unit is
`compute_budget_exceeded` (limit `seconds`); the next unit starts a new worker. A worker that
dies on its own (a decoder crashing on a hostile file) makes that file `validation_error`
(reason `worker_crashed`), never an internal error. The event loop only awaits.

Guarantees: `available()` says whether the `rapidocr-onnxruntime` package is installed (its
absence makes every OCR call `mode_unavailable`, never an import error); `stop()` leaves no
process behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from service.errors import ComputeBudgetExceeded, ModeUnavailable, PathInvalid, ValidationFailed, VaultgateError
from service.ocr import worker
from service.settings.ocr import OcrSettings

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

log = logging.getLogger(__name__)
T = TypeVar("T")
PACKAGE = "rapidocr-onnxruntime"
MODULE = "rapidocr_onnxruntime"


def available() -> bool:
    """Whether the recognizer's package is installed (it needs Python < 3.13)."""
    return importlib.util.find_spec(MODULE) is not None


def engine_name() -> str:
    """The recognizer and its version: part of the cache key, so a new model reads files again."""
    import importlib.metadata  # at the first OCR call, not at start-up

    try:
        version = importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = "absent"
    return f"{PACKAGE} {version} (PP-OCRv4)"


def unavailable(reason: str) -> ModeUnavailable:
    if reason == "disabled":
        return ModeUnavailable(
            "OCR is off in this server's configuration ([ocr] enabled = false)",
            details={"reason": "disabled"},
            hint="Set [ocr] enabled = true.",
        )
    return ModeUnavailable(
        f"OCR needs the {PACKAGE} package, which is not installed (it ships its models; Python < 3.13)",
        details={"reason": "engine_missing", "package": PACKAGE},
        hint=f"pip install {PACKAGE} (vaultgate pins the version it is tested with).",
    )


def failure_error(failure: worker.Failure, path: str) -> VaultgateError:
    """The service's error for what the worker could not read."""
    details = {**failure.details, "path": path}
    if failure.code == "engine_failed":  # the server's install, not the file (OpenCV without libGL)
        return ModeUnavailable(
            failure.message, details=details, hint="Install the system libraries it names (libgl1, libglib2.0-0)."
        )
    if failure.code == "path_invalid":  # a folder on the way swapped for a link since the call began
        return PathInvalid(failure.message, details=details)
    if failure.code in ("too_large", "too_many_pixels"):
        return ComputeBudgetExceeded(
            failure.message, details=details, hint="Scale the file down, or raise the [ocr] bound it names."
        )
    details.setdefault("reason", failure.code)
    return ValidationFailed(failure.message, details=details)


class OcrEngine:
    """Runs the worker's units of work one at a time in the worker process."""

    def __init__(self, settings: OcrSettings) -> None:
        self.settings = settings
        self.bounds = worker.Bounds(
            max_bytes=settings.max_file_bytes,
            max_pixels=settings.max_pixels,
            max_side=settings.max_side,
            dpi=settings.pdf_dpi,
        )
        self._pool: ProcessPoolExecutor | None = None
        self._lock = asyncio.Lock()
        self._idle: asyncio.TimerHandle | None = None
        self.started = 0  # worker processes started (tests and health)

    @functools.cached_property
    def name(self) -> str:
        return engine_name()

    def describe(self) -> str:
        """OCR in a phrase, for server_health."""
        if not self.settings.enabled:
            return "off ([ocr] enabled = false)"
        if not available():
            return f"unavailable: {PACKAGE} is not installed"
        return f"ready: {self.name}; worker {'running' if self._pool is not None else 'not started'}"

    def check(self) -> None:
        """Raise `mode_unavailable` when this server cannot read text from images."""
        if not self.settings.enabled:
            raise unavailable("disabled")
        if not available():
            raise unavailable("engine_missing")

    async def read(self, root: str, rel: str, kind: str, index: int) -> worker.Page | worker.Failure:
        """One image, or page `index` of a PDF (`rel` in the vault at `root`, opened with no link
        on the way), read in the worker within `timeout_s`."""
        return await self._run(worker.read_file, root, rel, kind, index, self.bounds)

    async def pdf_pages(self, root: str, rel: str) -> int | worker.Failure:
        return await self._run(worker.pdf_pages, root, rel, self.bounds)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        from concurrent.futures.process import BrokenProcessPool

        self.check()
        async with self._lock:
            if self._idle is not None:
                self._idle.cancel()
            try:
                pool = self._pool or self._start()
                future = asyncio.wrap_future(pool.submit(fn, *args))
            except (RuntimeError, OSError) as exc:  # no process could be started here
                self._kill()
                raise ModeUnavailable(
                    f"the OCR worker process could not start: {exc}", details={"reason": "worker_unavailable"}
                ) from None
            try:
                return await asyncio.wait_for(future, self.settings.timeout_s)
            except TimeoutError:
                self._kill()
                raise ComputeBudgetExceeded(
                    f"reading the text took longer than [ocr] timeout_s = {self.settings.timeout_s} s",
                    details={"limit": "seconds", "timeout_s": self.settings.timeout_s},
                    hint="Scale the image down or raise [ocr] timeout_s.",
                ) from None
            except BrokenProcessPool:
                self._kill()
                raise ValidationFailed(
                    "the OCR worker stopped while reading this file", details={"reason": "worker_crashed"}
                ) from None
            except asyncio.CancelledError:
                self._kill()  # the unit would run on for nobody
                raise
            finally:
                if self._pool is not None and self.settings.idle_s > 0:
                    loop = asyncio.get_running_loop()
                    self._idle = loop.call_later(self.settings.idle_s, self._kill)

    def _start(self) -> ProcessPoolExecutor:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.started += 1
        self._pool = ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=worker.start,
            initargs=(self.settings.threads,),
        )
        return self._pool

    def _kill(self) -> None:
        """Stop the worker now, whatever it is doing (its process is killed, not asked)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = list(getattr(pool, "_processes", {}).values())
        for process in processes:
            with contextlib.suppress(Exception):
                process.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(timeout=5)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
        started = time.monotonic()
        await asyncio.to_thread(self._kill)
        log.debug("ocr worker stopped in %.2f s", time.monotonic() - started)
