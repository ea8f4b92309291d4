"""MCP log notifications (`notifications/message`) for the clients that asked for them.

A client chooses a level with `logging/setLevel` (handshake era: it holds for that connection)
or, on protocol 2026-07-28, per request with `_meta["io.modelcontextprotocol/logLevel"]`. A
client that never asked is sent nothing, and the hot path does no work for it: `threshold()` is
a dict lookup on the request's `_meta` plus, only once some connection has set a level, one more
on that connection's state.

What is sent (data is a small JSON object; `logger` names the area):
- `warning` to the caller: a tool call failed (`tool`, `code`, `message`);
- `debug` to the caller: every tool call with its duration in ms;
- `info` to the caller: a note read whose frontmatter is invalid (`path`, `error`);
- `info` to every handshake-era connection at `info` or below that may see the vault: a reindex
  job started or finished (`vault`, `kind`, `status`, counts).

Delivery is best effort and bounded: a slow or gone client never delays or fails a call. Messages
about one request ride that request's stream (it arrives before the response); in JSON-response
mode, which has no such stream, and for broadcasts they use the connection's standalone stream.
This is one of the few modules that touch the SDK's session objects.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from typing import TYPE_CHECKING, Any

import mcp_types as types

if TYPE_CHECKING:
    from service.dispatch.context import ToolResult
    from service.indexer.jobs import Job
    from service.types import Principal

log = logging.getLogger(__name__)

LEVELS: tuple[types.LoggingLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
RANK: dict[str, int] = {level: i for i, level in enumerate(LEVELS)}
LEVEL_KEY = "vaultgate/client_log_level"
VAULT_KEY = "vaultgate/client_log_vault"  # the vault a bound token is limited to (None: any)
# `mcp_types.LOG_LEVEL_META_KEY`, spelled out: the SDK's types load at first use (a unit test pins it)
META_KEY = "io.modelcontextprotocol/logLevel"
SEND_TIMEOUT_S = 2.0
LOGGER = "vaultgate"


def _connection(ctx: Any) -> Any:
    session = getattr(ctx, "session", None)
    return getattr(session, "_connection", None)


class ClientLogs:
    def __init__(self, *, json_response: bool = False) -> None:
        self.json_response = json_response
        self._connections: weakref.WeakSet[Any] = weakref.WeakSet()

    # -- levels ------------------------------------------------------------------------------

    def set_level(self, ctx: Any, level: str, principal: Principal | None = None) -> None:
        """`logging/setLevel`: this connection wants messages at `level` and above from now on."""
        conn = _connection(ctx)
        if conn is None or level not in RANK:
            return
        conn.state[LEVEL_KEY] = RANK[level]
        conn.state[VAULT_KEY] = principal.vault if principal is not None else None
        self._connections.add(conn)

    def levels_set(self) -> bool:
        """Whether some connection chose a level (`logging/setLevel`) and is still open."""
        return bool(self._connections)

    def threshold(self, ctx: Any) -> int | None:
        """The lowest level rank the client of this request wants, or None (send nothing)."""
        if ctx is None:
            return None
        meta = getattr(ctx, "meta", None)
        if meta:
            requested = meta.get(META_KEY)
            if requested in RANK:
                return RANK[requested]
        if not self._connections:
            return None
        conn = _connection(ctx)
        if conn is None:
            return None
        rank: int | None = conn.state.get(LEVEL_KEY)
        return rank

    # -- sending -----------------------------------------------------------------------------

    async def send(self, ctx: Any, level: types.LoggingLevel, data: Any, *, threshold: int | None = None) -> None:
        """Tell the client of this request, if it asked for `level`."""
        wanted = self.threshold(ctx) if threshold is None else threshold
        if wanted is None or RANK[level] < wanted:
            return
        note = types.LoggingMessageNotification(
            params=types.LoggingMessageNotificationParams(level=level, data=data, logger=LOGGER)
        )
        related = None if self.json_response else ctx.request_id  # JSON mode has no per-request stream
        with contextlib.suppress(Exception):  # a gone or stalled client must not fail the call
            await asyncio.wait_for(ctx.session.send_notification(note, related_request_id=related), SEND_TIMEOUT_S)

    async def tool_called(self, ctx: Any, threshold: int, tool: str, result: ToolResult, seconds: float) -> None:
        """After a tools/call: a failure is a warning, every call is a debug line with its duration."""
        ms = round(seconds * 1000, 2)
        if result.is_error:
            error = (result.structured or {}).get("error") or {}
            data = {"event": "tool_failed", "tool": tool, "code": error.get("code"), "message": error.get("message")}
            await self.send(ctx, "warning", {**data, "duration_ms": ms}, threshold=threshold)
        await self.send(
            ctx,
            "debug",
            {"event": "tool_call", "tool": tool, "ok": not result.is_error, "duration_ms": ms},
            threshold=threshold,
        )

    async def broadcast(self, level: types.LoggingLevel, data: Any, *, vault: str | None = None) -> None:
        """Tell every handshake-era connection that asked for `level` (and may see `vault`)."""
        if not self._connections:
            return
        params = {"level": level, "logger": LOGGER, "data": data}
        for conn in list(self._connections):
            wanted = conn.state.get(LEVEL_KEY)
            bound = conn.state.get(VAULT_KEY)
            if wanted is None or RANK[level] < wanted or (bound is not None and vault is not None and bound != vault):
                continue
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.notify("notifications/message", params), SEND_TIMEOUT_S)

    async def job_changed(self, job: Job) -> None:
        """Reindex jobs: started and finished (done or failed) are info messages."""
        if job.status not in ("running", "done", "failed"):
            return
        event = "reindex_started" if job.status == "running" else "reindex_finished"
        data: dict[str, Any] = {"event": event, "vault": job.vault_id, "kind": job.kind, "status": job.status}
        if job.status != "running":
            data.update(progress=job.progress, total=job.total, result=job.result)  # error text may name host paths
        await self.broadcast("info", data, vault=job.vault_id)
