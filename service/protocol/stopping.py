"""The answer a request gets when the server stops before it finished: the same over HTTP
(`service.http.stops`) and stdio (`service.protocol.stdio_stop`). Standard library only: the
stdio front imports it before anything else is loaded.

A JSON-RPC error naming the request (`-32603`, `data.code` `server_stopping`). `data.retryable`
is true unless the call may have changed something: a `mutating` tool's call that ran (a single
write may have completed, a call acting in Obsidian may have run there; an all-or-nothing change
is rolled back) is answered retryable false, with a hint to look before calling again. A request
the stop kept from starting is retryable whatever it would have done.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

INTERNAL_ERROR = -32603
DRAIN_S = 1.0  # a stop before the server runs: how long the lines written before the signal get to be read


def stopped_answer(rid: Any, method: str, tool: str | None, mutating: bool, ran: bool = True) -> bytes:
    """The JSON-RPC error for request `rid` (`method`, `tool` for a `tools/call`) the stop ended;
    `mutating`: the tool may change the vault or act in Obsidian; `ran`: it had started."""
    changes = ran and method == "tools/call" and tool is not None and mutating
    if changes:
        message = (
            f"the server stopped while {tool} ran: a change of many files was rolled back, but a "
            "single write may have been made and a call acting in Obsidian may have run"
        )
        hint = "Once the server is back, look at what the call would have changed before calling it again."
    elif ran:
        message = "the server is stopping: the request was stopped before it finished"
        hint = "Call again once the server is back."
    else:
        message = "the server is stopping: the request was not started"
        hint = "Call again once the server is back."
    data = {"code": "server_stopping", "retryable": not changes, "hint": hint}
    error = {"code": INTERNAL_ERROR, "message": message, "data": data}
    return json.dumps({"jsonrpc": "2.0", "id": rid, "error": error}).encode()


def stop_early_on_signal(
    refuse: Callable[[Callable[[dict[str, Any]], bytes]], None], idle: Callable[[], bool] = lambda: True
) -> None:
    """`vaultgate stdio` from its spawn until its event loop takes SIGTERM/SIGINT
    (`service.serve_stdio`, once the app is built: seconds on a loaded machine): a signal ended
    the process at once (status -15, or a KeyboardInterrupt traceback), the client's requests
    waiting for the server unanswered. Now they are answered `server_stopping` (not started:
    retryable) through `refuse` (`StdioFront.refuse`: it answers each request read from then on
    too), once the reader has delivered what the client wrote before the signal (`idle`, at most
    `DRAIN_S`), and the process exits 0. The answers are written from a thread of their own, not
    in the handler: the main thread may hold the front's lock. Main thread only (where Python runs
    signal handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return

    def stop() -> None:
        refuse(lambda msg: stopped_answer(msg.get("id"), str(msg.get("method")), None, False, ran=False))
        deadline = time.monotonic() + DRAIN_S
        while not idle() and time.monotonic() < deadline:
            time.sleep(0.005)
        os._exit(0)  # nothing of the server runs yet that a stop would have to wait for

    def on_signal(signum: int, frame: Any) -> None:
        threading.Thread(target=stop, name="vaultgate-stop", daemon=True).start()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
