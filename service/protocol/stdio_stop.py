"""Stopping `vaultgate stdio` (SIGTERM, SIGINT) with requests in flight: each finishes within a
short grace or is answered, as `vaultgate serve` answers them (`service.http.stops`).

The process used to exit at once on a signal (the SDK's session was never stopped), so a call
still running (a bridge call waiting on a hung Obsidian, any slow tool) was never answered: the
client waited on. The MCP stdio shutdown is "close stdin, wait for the server to exit, then
SIGTERM"; a call running then had the end-of-input grace (`sdk_pumps.EOF_GRACE_S`, 10 s) cut
short the same way. Now, on the signal (`service.serve_stdio`):
- a request that arrives from then on is answered at once and not started (retryable), and so is
  one that waited for the server to load;
- the calls in flight, on the fast path (`service.protocol.fast_calls`) and the SDK's
  (`service.protocol.sdk_pumps`), get `STOP_GRACE_S` (a second signal ends it); a journaled change
  in flight stops at its next file and rolls back, and its call answers `server_stopping` itself
  (the caller has told the plans: `PlanRuns.stopping`);
- those still running then are answered (`service.protocol.stopping`: `-32603`, `data.code`
  `server_stopping`, retryable unless a `mutating` tool's call ran) and cancelled.
Nothing is half-written by the stop: file writes are atomic and all-or-nothing changes roll back.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from service.protocol.stdio_front import StdioFront
from service.protocol.stopping import stopped_answer

STOP_GRACE_S = 2.0  # what requests in flight get to finish once a signal came
CANCEL_WAIT_S = 1.0  # then how long the cancelled ones get to end (a rollback under way)


async def stop_requests(front: StdioFront, mutating: Callable[[str], bool], hurry: asyncio.Event) -> None:
    """Answer every request of the stdio client before the process exits (module docstring);
    `mutating(tool)`: the tool may change the vault or act in Obsidian; `hurry`: a second signal
    (the grace ends)."""

    def answer(rid: Any, method: str, tool: str | None, ran: bool) -> bytes:
        return stopped_answer(rid, method, tool, tool is not None and mutating(tool), ran)

    def refused(msg: dict[str, Any]) -> bytes:
        params = msg.get("params")
        tool = params.get("name") if msg.get("method") == "tools/call" and isinstance(params, dict) else None
        return answer(msg.get("id"), str(msg.get("method")), tool if isinstance(tool, str) else None, False)

    front.refuse(refused)
    fast, pumps = front.fast, front.pumps
    settling = asyncio.ensure_future(_settled([part for part in (fast, pumps) if part is not None]))
    hurried = asyncio.ensure_future(hurry.wait())
    await asyncio.wait([settling, hurried], timeout=STOP_GRACE_S, return_when=asyncio.FIRST_COMPLETED)
    for task in (settling, hurried):
        task.cancel()
    await asyncio.gather(settling, hurried, return_exceptions=True)
    if pumps is not None:
        await pumps.stopped(answer)
    if fast is not None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CANCEL_WAIT_S):
                await fast.stopped(answer)


async def _settled(parts: list[Any]) -> None:
    """Until each part (`FastCalls`, `SdkPumps`) has no request in flight."""
    for part in parts:
        await part.settled()
