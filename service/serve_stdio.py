"""Running the app for one client over stdin/stdout (the CLI's `vaultgate stdio`).

`run_stdio` serves until stdin closes or SIGTERM/SIGINT arrives (or the client closed stdin and
reads stdout no more: `service.protocol.stdio_out`, stopped as on a signal); on a signal each request of the
client is answered (`service.protocol.stdio_stop`: the calls in flight get a short grace, then
`server_stopping`), the session and the app are stopped (databases closed, watchers stopped) and
the process exits 0 at once, because the SDK reads stdin in a worker thread that no cancellation
can interrupt. Apart from `service.serve` (the
HTTP runner): a stdio process imports neither uvicorn nor the HTTP tier, and the SDK's server
side only after its first calls are answered (`VaultgateApp.run_stdio_session`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys

from service.app import VaultgateApp
from service.protocol.stdio_front import StdioFront

STOP_SESSION_S = 1.0  # once its requests are answered, how long the cancelled session gets to end
STOP_REQUESTS_S = 5.0  # on a signal, answering the requests (grace 2 s, cancel 1 s) ends within this


async def _stdio_until_signal(app: VaultgateApp, front: StdioFront | None) -> bool:
    """Serve stdio; True when a signal ended it (the stdin reader may still be blocked then)."""
    loop = asyncio.get_running_loop()
    stop, hurry = asyncio.Event(), asyncio.Event()

    def signalled() -> None:
        if stop.is_set():
            hurry.set()  # a second signal: the requests in flight are answered at once
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, signalled)
    if front is not None:
        front.outbox.on_gone = stop.set  # stdin closed while stdout is not read (`service.protocol.stdio_out`)
    async with app.running():
        serving_task = asyncio.create_task(app.run_stdio_session(front))
        stop_task = asyncio.create_task(stop.wait())
        done, _ = await asyncio.wait({serving_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
        if serving_task in done:
            stop_task.cancel()
            serving_task.result()  # stdin closed: a normal end (an error is raised as is)
            return False
        logging.getLogger("vaultgate").info("shutting down (signal, or the client gone)")
        await _stop_serving(app, front, serving_task, hurry)
    return True


async def _stop_serving(
    app: VaultgateApp, front: StdioFront | None, serving: asyncio.Task[None], hurry: asyncio.Event
) -> None:
    """Every request of the client answered (`service.protocol.stdio_stop`), then the session
    stopped, before the app stops (its databases close under no running call)."""
    app.plans.stopping()  # a journaled change in flight stops at its next file and rolls back
    if front is not None:
        from service.protocol.stdio_stop import stop_requests

        # bounded: with stdout not read, the answers wait for the pipe forever (`service.protocol.stdio_out`)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(STOP_REQUESTS_S):
                await stop_requests(front, lambda tool: (s := app.registry.get(tool)) is not None and s.mutating, hurry)
    serving.cancel()
    try:
        async with asyncio.timeout(STOP_SESSION_S):
            await serving
    except (asyncio.CancelledError, TimeoutError):
        pass
    except (
        Exception
    ) as exc:  # the session's own error as it stops (its output stuck, a stream closed): the stop goes on
        if _streams_closed(exc):  # the SDK's relay found its streams closed by the cancel: the stop itself
            logging.getLogger("vaultgate").debug("the stdio session's streams closed as it stopped", exc_info=True)
        else:
            logging.getLogger("vaultgate").warning(
                "the stdio session ended with an error while stopping", exc_info=True
            )


def _streams_closed(exc: BaseException) -> bool:
    """Whether `exc` is only streams found closed (anyio's BrokenResourceError, ClosedResourceError,
    EndOfStream, alone or in groups): the SDK's `replay_then_relay` still sending when the cancel
    closed its stream raised one, and the stop logged it as a traceback (a stop seen as failing)."""
    import anyio

    if isinstance(exc, BaseExceptionGroup):
        return all(_streams_closed(inner) for inner in exc.exceptions)
    return isinstance(exc, (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream))


def run_stdio(app: VaultgateApp, front: StdioFront | None = None) -> int:
    """The CLI's `stdio` command: exit status 0 after stdin closes or on SIGTERM/SIGINT."""
    loop = asyncio.new_event_loop()
    signalled = loop.run_until_complete(_stdio_until_signal(app, front))
    # after stdin closed, the answers still owed go out while the client reads them (none read for
    # `stdio_out.GONE_S`: it reads no more); before, a line still being written after 2 s was cut
    if not signalled and front is not None and front.outbox.stuck():
        logging.getLogger("vaultgate").warning("stdout is not read: the answers still unwritten are dropped")
        signalled = True  # a worker thread blocked writing stdout cannot be joined: exit as on a signal
    if signalled:
        logging.shutdown()
        sys.stderr.flush()
        os._exit(0)  # the SDK's stdin thread cannot be joined; everything of ours is closed
    try:
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        loop.close()
    return 0
