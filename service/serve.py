"""Running the HTTP server with uvicorn (the CLI and the end-to-end tests use the same code).

`serving(settings)` starts uvicorn inside the current event loop, waits until the socket is
bound and the lifespan has started, and yields the MCP URL; leaving the block shuts down with
the configured grace period. `serve_http` is the CLI's form: it prints the URL once the server
answers and turns SIGTERM/SIGINT into a graceful shutdown with exit status 0 (a second signal
forces the exit); `run_http` runs it to the end on uvloop's event loop when uvloop is installed
(as `uvicorn.run` would; `uvicorn[standard]` ships it), else on asyncio's. The stdio runner is
`service.serve_stdio`: a stdio process imports neither uvicorn nor the HTTP tier.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import importlib.util
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator

import uvicorn

from service.app import VaultgateApp
from service.errors import ConfigError
from service.gcpause import paused
from service.http.asgi import http_app
from service.http.connections import LINGER_SECONDS, connection_cap
from service.http.head_limits import uvicorn_options
from service.http.stops import Stops, arriving, end_arriving
from service.obs.logging import setup_logging
from service.settings import Settings

log = logging.getLogger(__name__)


def _uvicorn_config(app: VaultgateApp) -> uvicorn.Config:
    http = app.settings.http
    return uvicorn.Config(
        http_app(app),
        host=http.host,
        port=http.port,
        loop="uvloop" if importlib.util.find_spec("uvloop") else "asyncio",
        **uvicorn_options(
            _parser(http.parser),
            http.max_header_bytes,
            http.request_read_seconds,
            connection_cap(http.max_connections),
            http.unread_seconds,
            http.keep_alive_seconds,
        ),
        ws="none",  # MCP needs no websockets; "auto" imported a websocket stack at every start (~14 ms)
        lifespan="on",
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=max(1, int(http.graceful_shutdown_seconds)),
        server_header=False,
    )


def _parser(chosen: str) -> str:
    """`http.parser`: httptools when asked or installed ("auto"), else h11."""
    installed = importlib.util.find_spec("httptools") is not None
    if chosen == "httptools" and not installed:
        raise ConfigError("http.parser = 'httptools' but httptools is not installed (pip install httptools)")
    if chosen == "auto":
        return "httptools" if installed else "h11"
    return chosen


class _Server(uvicorn.Server):
    _exit = False
    _exit_asked: Callable[[], object] | None = None  # wakes `main_loop` (set while it runs)

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.startup_done = asyncio.Event()  # set when startup ends, bound or not (see `started`)
        self.stops: Stops | None = getattr(getattr(config.app, "state", None), "stops", None)

    @property
    def should_exit(self) -> bool:
        return self._exit

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        self._exit = value
        if value and self._exit_asked is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nothing waits any more
                self._exit_asked()

    async def main_loop(self) -> None:
        """Wait until asked to exit. uvicorn's own loop woke 10 times a second to look at
        `should_exit` and make the Date header again: an idle server's only wake-ups. The header is
        made current as requests are read (`service.http.connections.fresh_date`); this server sets
        no request limit and no notify callback, the tick's other work."""
        loop = asyncio.get_running_loop()
        asked = asyncio.Event()
        self._exit_asked = lambda: loop.call_soon_threadsafe(asked.set)
        try:
            await self.on_tick(0)
            while not self.should_exit:
                await asked.wait()
                asked.clear()
        finally:
            self._exit_asked = None

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's graceful stop, with the requests in flight on the MCP path ended before its
        period runs out (`service.http.stops`): each finishes within it or is answered, none is
        cancelled by uvicorn with a traceback."""
        if self.stops is None:
            await super().shutdown(sockets)
            return
        graceful = float(self.config.timeout_graceful_shutdown or 0)
        stopping = asyncio.ensure_future(self._stop(self.stops, graceful - min(1.0, graceful / 2)))
        try:
            await super().shutdown(sockets)
        finally:
            stopping.cancel()

    async def _stop(self, stops: Stops, within: float) -> None:
        """The requests in flight end within `within` seconds, and those still arriving have that
        less the close's linger (`LINGER_SECONDS`: the client reads the answer before the close)
        to arrive whole; then they are answered (`stops.end_arriving`; uvicorn cancelled them with
        an HTTP 500), and one that arrived meanwhile is stopped as the others were."""
        loop = asyncio.get_running_loop()
        end = loop.time() + within
        first = asyncio.ensure_future(stops.stop(within))
        try:
            while arriving(self.server_state.connections) and loop.time() < end - LINGER_SECONDS:  # noqa: ASYNC110
                await asyncio.sleep(0.1)  # tells a body arrived: looked at as uvicorn's shutdown looks
            end_arriving(self.server_state.connections)
            await first
            await stops.stop(max(0.0, end - loop.time()))
        finally:
            first.cancel()

    def install_signal_handlers(self) -> None:  # the embedding loop owns signals
        return None

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # uvicorn >= 0.29 installs its own handlers here besides the loop's: one SIGTERM then
        # counted twice (graceful, then forced), which skipped the lifespan shutdown and logged
        # a traceback. The loop's handlers (`serve_http`) are the only ones.
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets)
        except SystemExit:
            # uvicorn exits the process (status 3, a traceback) when it cannot bind; it has logged
            # why, so stop serving and let the caller report a start-up error instead.
            self.should_exit = True
        finally:
            self.startup_done.set()

    async def until_started(self, task: asyncio.Task[None]) -> bool:
        """Wait until uvicorn has bound its socket (True) or gave up / exited (False)."""
        waiter = asyncio.ensure_future(self.startup_done.wait())
        try:
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        return self.started


def _bound_port(server: uvicorn.Server) -> int:
    for srv in server.servers:
        for sock in srv.sockets:
            return int(sock.getsockname()[1])
    raise RuntimeError("server has no bound socket")


def mcp_url(settings: Settings, port: int) -> str:
    host = settings.http.host
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    if host in ("0.0.0.0", "[::]"):
        host = "127.0.0.1"
    return f"http://{host}:{port}{settings.http.path}"


@contextlib.asynccontextmanager
async def serving(settings: Settings, app: VaultgateApp | None = None) -> AsyncIterator[tuple[str, VaultgateApp]]:
    app = app or VaultgateApp(settings)
    server = _Server(_uvicorn_config(app))
    task = asyncio.create_task(server.serve())
    try:
        if not await server.until_started(task):
            await task  # uvicorn's own error, if it raised one
            raise RuntimeError("uvicorn exited before starting")
        yield mcp_url(settings, _bound_port(server)), app
    finally:
        server.should_exit = True
        await task


def _on_signal(server: uvicorn.Server, app: VaultgateApp) -> None:
    # First signal: graceful shutdown (bounded by timeout_graceful_shutdown); second: force.
    # A journaled change still writing stops at once and rolls back, so its call can answer
    # `server_stopping` while uvicorn waits for the connections to close.
    app.plans.stopping()
    if server.should_exit:
        server.force_exit = True
    server.should_exit = True


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when installed: its socket writes and callbacks cost the server
    less CPU per HTTP call than asyncio's selector loop (docs/benchmarks.md)."""
    if importlib.util.find_spec("uvloop") is None:
        return None
    import uvloop

    return uvloop.new_event_loop


# Once the app has stopped, how long the process waits for worker threads still running (see `run_http`).
STRAGGLERS_S = 3.0


def run_http(settings: Settings) -> None:
    """`serve_http` to the end (the CLI's `serve`), on the fastest event loop available. Once it
    has returned (the app stopped: database closed, index writes done), closing the loop joins
    the default executor's threads, and CPU work a cancelled call left there (preparing one huge
    note's rows, T1 s62 #13) cannot be interrupted: it held a stopping server for as long as it
    ran. So the process exits after `STRAGGLERS_S` whatever such a thread still does."""
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        runner.run(serve_http(settings))
        _exit_after(STRAGGLERS_S)


def _exit_after(seconds: float) -> None:
    """A daemon thread that ends the process (status 0) after `seconds` unless it has ended."""

    def watch() -> None:
        time.sleep(seconds)
        busy = [t.name for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon]
        log.warning("stopped; exiting without waiting for threads still running: %s", ", ".join(busy))
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

    threading.Thread(target=watch, name="vaultgate-exit", daemon=True).start()


async def serve_http(settings: Settings) -> None:
    setup_logging(settings.log)
    # What is built here lives as long as the process: no cyclic collection walks it while it is
    # made, and it is frozen once made (`service.collector` freezes what comes later), as
    # `vaultgate stdio` does; else young collections walked it again and again on the way to the
    # first answered call (docs/benchmarks.md, "warm restart").
    with paused():
        app = VaultgateApp(settings, owns_process=True)
        server = _Server(_uvicorn_config(app))
        gc.freeze()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, _on_signal, server, app)
    task = asyncio.create_task(server.serve())
    # The URL is printed the moment the socket is bound, unless a signal came while it started:
    # then uvicorn closes the socket at once, serving nothing (the stop goes on as a started one's).
    if await server.until_started(task) and not server.should_exit:
        vaults = ", ".join(f"{v.id}={v.path}" for v in settings.vaults)
        print(f"vaultgate {app.version} serving {vaults}", flush=True)
        print(f"MCP endpoint: {mcp_url(settings, _bound_port(server))}", flush=True)
    await task
    if not server.started:
        http = settings.http
        if _port_taken(http.host, http.port):
            raise ConfigError(
                f"the HTTP server did not start: port {http.port} on {http.host} is in use (another vaultgate?):"
                " stop that server, or pass --port N (--port 0 picks a free one)"
            )
        raise ConfigError(f"the HTTP server did not start on {http.host}:{http.port} (see the log above)")


def _port_taken(host: str, port: int) -> bool:
    """Whether another socket holds `host:port` now, told by binding it as uvicorn does."""
    if port == 0:
        return False
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            return error.errno == errno.EADDRINUSE
    return False
