"""The built-in model's derived int8 file is made once per test run, not once per xdist worker
(~8 s of CPU, 240 MB written and up to 78 s of wall time under load, each).

The run's workers share one models folder (`tests/conftest.py`: `$VAULTGATE_MODEL_CACHE` is
`models/` in the run's base temp folder, the parent of each worker's `popen-gwN`). `install()`
makes a test process's derivations in that folder take turns on a lock file there: one worker
derives, the others wait, then find the file made (`quantize.int8_model` checks its pinned
sha256, so a file a crashed worker left is never trusted; it writes under a temporary name and
renames). The lock is the kernel's (flock), so a worker that dies holding it releases it. A
waiter whose `stop` is set (its server stopping) stops waiting, as a derivation in progress
would stop. Derivations in other folders (tests that make their own) and in server subprocesses
run as before."""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from service.embeddings import builtin, quantize

LOCK_FILE = "models.lock"
POLL_S = 0.05  # how often a waiter tries the lock again (and looks at its stop)

_Derive = Callable[[Path, Path, "threading.Event | None"], "Path | None"]


@contextlib.contextmanager
def taking_turns(folder: Path, stop: threading.Event | None = None) -> Iterator[None]:
    """Hold `folder`'s lock for the block (`quantize.Stopped` when `stop` is set while waiting)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_FILE, "a") as lock:  # closing the file releases the lock
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if stop is not None and stop.is_set():
                    raise quantize.Stopped("the server is stopping") from None
                time.sleep(POLL_S)
        yield


def _shared(real: _Derive) -> _Derive:
    def int8_model(folder: Path, source: Path, stop: threading.Event | None = None) -> Path | None:
        shared = os.environ.get(builtin.MODELS_ENV, "").strip()
        if not shared or Path(shared) != folder:
            return real(folder, source, stop)
        with taking_turns(folder, stop):
            return real(folder, source, stop)

    int8_model.__wrapped__ = real  # type: ignore[attr-defined]
    return int8_model


def install() -> None:
    """Make this process's derivations in the shared models folder take turns (once)."""
    if not hasattr(quantize.int8_model, "__wrapped__"):
        quantize.int8_model = _shared(quantize.int8_model)  # type: ignore[assignment]
    setattr(builtin, "int8_model", quantize.int8_model)  # noqa: B010 - builtin's imported name
