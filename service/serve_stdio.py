"""Running the app for one client over stdin/stdout (the CLI's `vaultgate stdio`).

`run_stdio` serves until stdin closes or SIGTERM/SIGINT arrives; on a signal the app is stopped
(databases closed, watchers stopped) and the process exits 0 at once, because the SDK reads
stdin in a worker thread that no cancellation can interrupt. Apart from `service.serve` (the
HTTP runner): a stdio process imports neither uvicorn nor the HTTP tier, and the SDK's server
side only after its first calls are answered (`VaultgateApp.run_stdio_session`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys

from service.app import VaultgateApp
from service.protocol.stdio_front import StdioFront


async def _stdio_until_signal(app: VaultgateApp, front: StdioFront | None) -> bool:
    """Serve stdio; True when a signal ended it (the stdin reader is still blocked then)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with app.running():
        serving_task = asyncio.create_task(app.run_stdio_session(front))
        stop_task = asyncio.create_task(stop.wait())
        done, _ = await asyncio.wait({serving_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
        if serving_task in done:
            stop_task.cancel()
            serving_task.result()  # stdin closed: a normal end (an error is raised as is)
            return False
        logging.getLogger("vaultgate").info("shutting down (signal)")
    return True


def run_stdio(app: VaultgateApp, front: StdioFront | None = None) -> int:
    """The CLI's `stdio` command: exit status 0 after stdin closes or on SIGTERM/SIGINT."""
    loop = asyncio.new_event_loop()
    signalled = loop.run_until_complete(_stdio_until_signal(app, front))
    if signalled:
        logging.shutdown()
        sys.stderr.flush()
        os._exit(0)  # the SDK's stdin thread cannot be joined; everything of ours is closed
    try:
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        loop.close()
    return 0
