"""The stdio fast path: a plain `tools/call` answered without the MCP SDK (`[protocol] fast_calls`).

After the SDK session attaches, the stdio front (`service.protocol.stdio_front`) hands every
line to `FastCalls.route` on the event loop, parsed. A request that qualifies runs through the
dispatch chain in a task of its own (`service.protocol.fast_path`: which calls, and the JSON
the SDK would write for them); every other line goes to the SDK, in order. A request qualifies
when, besides `FastPath.plain_call`:

- the connection is in the handshake era and its `initialize` was answered with a result (the
  front tells the version it saw go out, and whether the client declared `elicitation`), and no
  `logging/setLevel` has been seen on it; or the connection opened with a 2026-07-28 request
  (the front tells which era the client's first request opened, as the SDK's dual-era loop
  decides it), the call's envelope passes the SDK's own check (`classify_inbound_request`: a
  supported version, client info and capabilities; else the SDK answers the error), its
  `_meta` holds nothing else but `vaultgate/…` keys (no per-request log level), and the SDK's
  server is built (its `serverInfo` stamp goes into every answer); the call's own client
  capabilities say whether it declared `elicitation`;
- the message is exactly `{"jsonrpc": "2.0", "id", "method": "tools/call", "params"}` with a
  string id or an integer id in the signed 64-bit range. The front has parsed and validated it
  (`service.protocol.framing`: strict JSON, so its params read as the SDK's parser reads them).

A `tools/list` whose result the stdio front stored for the same params (the SDK's earlier answer, or the
package's: `StdioFront.kept_list`) is answered with it when `replays` holds (the envelope as above, `_meta` holding
only the 2026-07-28 envelope, no `logging/setLevel` seen, no global tracer): the SDK builds the list again at every
request, and its client lists the tools before each call of a tool the lean list does not show.

As on the SDK's path: the principal is the local stdio one; concurrent calls may complete out
of order; an exception raised by the chain is answered as a JSON-RPC error
(`fast_path.error_data`); a `notifications/cancelled` for a call running here cancels it and
nothing is answered (the notification stays here); calls still running when stdin closes get
`EOF_GRACE_S` to finish, then are cancelled and answered "Connection closed" (-32000).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import json
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic_core import to_json

from service.protocol.fast_path import (
    METHOD,
    FastPath,
    PlainCall,
    envelope_holds,
    error_data,
    global_tracing,
    log,
    result_json,
)
from service.protocol.handshake import bare_ping, declares_elicitation
from service.protocol.sdk_pumps import EOF_GRACE_S
from service.protocol.stdio_front import REPLAY_ID
from service.protocol.stdio_target import MODERN_META as MODERN_META

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server

ENVELOPE = frozenset({"jsonrpc", "id", "method", "params"})
INT64 = 2**63
QUIET_S = 0.1  # a stdio start builds the SDK's server once no plain call ran for this long (`hand_over`)


def _valid_id(rid: Any) -> bool:
    """A string id, or an integer one in the signed 64-bit range (not a bool)."""
    return isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool) and -INT64 <= rid < INT64)


def _request_key(rid: Any) -> str | int | None:
    """The key a request id is tracked under, by the SDK's correlation rule: `7` and `"7"` are
    one request; True is no id (it would pass for 1); None: not an id."""
    if isinstance(rid, bool) or not isinstance(rid, str | int):
        return None
    if isinstance(rid, str):
        with contextlib.suppress(ValueError):
            return int(rid)
    return rid


class FastCalls:
    """The stdio front's router for one connection: a line goes to the SDK or runs here."""

    def __init__(self, path: FastPath) -> None:
        self.path = path
        self.handshake: str | None = None  # the protocol version `initialize` was answered with
        self.modern = False  # the client's first request carried the 2026-07-28 envelope (`opened`)
        self.can_elicit = False  # the client's `initialize` declared the `elicitation` capability
        self.logging = False  # the client asked for log notifications: the SDK's session sends them
        self.answered = 0  # calls answered here
        self.listed = 0  # `tools/list` requests the front answered from its store (`replays`)
        self._forward: Callable[[bytes], None] | None = None
        self._freed: Callable[[Any], None] = lambda rid: None
        self._send: Callable[[bytes], Coroutine[Any, Any, None]] | None = None
        self._kept: Callable[[dict[str, Any]], str | None] | None = None
        self._listing: set[asyncio.Task[None]] = set()  # answers given here being written (`_answer`)
        self._context = contextvars.copy_context()
        self._inflight: dict[Any, tuple[asyncio.Task[None], list[bool]]] = {}
        self._asked: dict[Any, tuple[str | int, str]] = {}  # request key -> its id, its tool: what a stop answers
        self.sdk_ready = asyncio.Event()  # the SDK's server reads: the front hands it the other lines
        self.urgent = asyncio.Event()  # a request the SDK must answer is waiting: build its server now
        self._last = 0.0  # loop time a plain call last started or ended here
        self.ended: Callable[[], None] = lambda: None  # a call ended here (the stdio front's `Outbox.release`)

    def running(self) -> int:
        """Calls running here now."""
        return len(self._inflight)

    def bind(
        self,
        forward: Callable[[bytes], None],
        send: Callable[[bytes], Coroutine[Any, Any, None]],
        kept: Callable[[dict[str, Any]], str | None] | None = None,
        freed: Callable[[Any], None] = lambda rid: None,
    ) -> None:
        """On the event loop, when the SDK session attaches: `forward` hands a line to the SDK,
        `send` writes a response line to the client, `kept` gives the result stored for a
        `tools/list` (the stdio front's store: `StdioFront.kept_list`), `freed(id)` tells that a
        request answered here holds its id no more (`service.protocol.stdio_ids`)."""
        self._forward = forward
        self._send = send
        self._kept = kept
        self._freed = freed
        self._context = contextvars.copy_context()

    def initialized(self, version: Any, params: str) -> None:
        """The connection's `initialize` was answered with `version` (any thread); `params`: the
        client's `initialize` params as JSON ('' unknown), for its `elicitation` capability."""
        self.can_elicit = declares_elicitation(json.loads(params)) if params else False
        if isinstance(version, str) and version in HANDSHAKE_PROTOCOL_VERSIONS:
            self.handshake = version

    def opened(self, modern: bool) -> None:
        """The client's first request opened the connection in the 2026-07-28 era (`modern`) or
        the handshake era (any thread; the front tells it before that request is routed)."""
        self.modern = modern

    def route(self, line: bytes, msg: dict[str, Any] | None) -> None:
        """On the event loop: run `msg` here when it qualifies, else hand `line` to the SDK."""
        assert self._forward is not None
        if msg is not None:
            method = msg.get("method")
            if method == METHOD:
                plain = self._plain(msg)
                if plain is not None:
                    self._start(msg["id"], *plain)
                    return
            elif method == "notifications/cancelled" and "id" not in msg and self._cancel(msg.get("params")):
                return
            elif method == "tools/list" and self._kept is not None and self.replays(msg):
                result = self._kept(msg)
                if result is not None:
                    self._answer(msg["id"], result)
                    self.listed += 1
                    log.debug("tools/list %s answered from the kept list", to_json(msg["id"]).decode())
                    return
            elif method == "ping" and self.handshake is not None and not self.modern and self._bare(msg):
                if bare_ping(msg):  # as the SDK answers it; other params: its checks
                    self._answer(msg["id"], "{}")
                    return
            elif method == "logging/setLevel":
                self.logging = True
        if msg is None or ("id" in msg and msg["id"] != REPLAY_ID):  # a question (or answer) for the SDK
            self.urgent.set()
        self._forward(line)

    def _plain(self, msg: dict[str, Any]) -> tuple[PlainCall, str] | None:
        """The call and the protocol version it is answered at, when it runs here."""
        if not self._bare(msg):
            return None
        params = msg.get("params")
        if self.handshake is not None and not self.modern:  # a 2026-07-28 connection refuses `initialize`
            call = self.path.plain_call(params, can_elicit=self.can_elicit)
            return None if call is None else (call, self.handshake)
        if not self.modern or self.path.server_info is None:
            return None
        from mcp.shared.inbound import InboundModernRoute, classify_inbound_request

        route = classify_inbound_request({"method": METHOD, "params": params})
        if not isinstance(route, InboundModernRoute) or not isinstance(params, dict):
            return None  # the SDK answers what is wrong with the envelope
        if not envelope_holds(METHOD, route.protocol_version, params):
            return None  # its values too
        caps = route.client_capabilities
        can_elicit = isinstance(caps, dict) and caps.get("elicitation") is not None
        call = self.path.plain_call(params, can_elicit=can_elicit, envelope=MODERN_META)
        return None if call is None else (call, route.protocol_version)

    def _bare(self, msg: dict[str, Any]) -> bool:
        """Exactly the JSON-RPC envelope with a valid id, on a connection that set no log level."""
        return not (self.logging or msg.keys() - ENVELOPE) and msg.get("jsonrpc") == "2.0" and _valid_id(msg.get("id"))

    def replays(self, msg: dict[str, Any]) -> bool:
        """Whether the front may answer this `tools/list` with the result the SDK (or the package,
        `service.protocol.shipped_tools_list`) gave to the same params before: `_bare`, its
        `_meta` holds only the 2026-07-28 envelope and no global tracer records the SDK's spans
        (the SDK's answer is the same for the same params: the list depends on the code and two
        settings sections, fixed for the process)."""
        if not self._bare(msg):
            return False
        params = msg.get("params")
        if params is not None and not isinstance(params, dict):
            return False
        meta = (params or {}).get("_meta")
        if meta is not None and (not isinstance(meta, dict) or meta.keys() - MODERN_META):
            return False
        return not global_tracing()

    def _answer(self, rid: str | int, result: str) -> None:
        """Answer a request here with `result` (JSON): a `tools/list` from the kept list, a `ping`
        (~0.4 ms of the SDK session's CPU each: its streams, models and tasks). Written in a task:
        a full pipe must not hold the loop."""
        assert self._send is not None
        payload = b'{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (to_json(rid), result.encode())
        self._freed(rid)
        task = asyncio.get_running_loop().create_task(self._send(payload), context=self._context.copy())
        self._listing.add(task)
        task.add_done_callback(self._listing.discard)

    def _cancel(self, params: Any) -> bool:
        """`notifications/cancelled` for a call running here: stop it, answer nothing."""
        key = _request_key(params.get("requestId")) if isinstance(params, dict) else None
        entry = self._inflight.get(key) if key is not None else None
        if entry is None:
            return False
        task, cancelled = entry
        cancelled[0] = True
        task.cancel()
        return True

    def _start(self, rid: str | int, call: PlainCall, version: str) -> None:
        self._last = asyncio.get_running_loop().time()
        cancelled = [False]
        task = asyncio.get_running_loop().create_task(
            self._run(rid, call, version, cancelled), context=self._context.copy()
        )
        self._inflight[_request_key(rid)] = (task, cancelled)
        self._asked[_request_key(rid)] = (rid, call.tool)
        task.add_done_callback(functools.partial(self._ended, rid))

    def _ended(self, rid: str | int, task: asyncio.Task[None]) -> None:
        """A call's entry and id let go, once: `_run` does it before its answer goes out; a call
        cancelled before its first step never ran `_run` (a `notifications/cancelled` routed in the
        same loop turn as its call): its entry, id and slot were held for good, and 64 of them held
        every later line (`stdio_out.HOLD_AT`)."""
        key = _request_key(rid)
        if self._inflight.get(key, (None,))[0] is task:
            del self._inflight[key]
            self._asked.pop(key, None)
            self._freed(rid)  # answered next (or, cancelled by the client, owed nothing)
            self.ended()

    async def _run(self, rid: str | int, call: PlainCall, version: str, cancelled: list[bool]) -> None:
        assert self._send is not None
        try:
            try:
                result = await self.path.run(call, rid)
            finally:
                self._last = asyncio.get_running_loop().time()
                task = asyncio.current_task()
                assert task is not None
                self._ended(rid, task)
            if cancelled[0]:
                return
            answer = result_json(result, version, self.path.server_info)
            payload = b'{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (to_json(rid), answer)
        except asyncio.CancelledError:
            if not cancelled[0]:  # the connection is closing: answered, as the SDK does
                closed = types.ErrorData(code=types.CONNECTION_CLOSED, message="Connection closed")
                await self._send(_error_line(rid, closed))
                raise
            return
        except Exception as exc:  # noqa: BLE001 - the SDK's exception-to-wire boundary, mirrored
            if not cancelled[0]:
                await self._send(_error_line(rid, error_data(exc, modern=version not in HANDSHAKE_PROTOCOL_VERSIONS)))
            return
        self.answered += 1
        await self._send(payload)

    async def settled(self) -> None:
        """Until no call runs here (a stdio start loads the SDK then: an import holds the loop,
        the calls would wait for it); the caller bounds the wait."""
        while self._inflight:
            await asyncio.wait([task for task, _ in self._inflight.values()])

    async def stopped(self, answer: Callable[[Any, str, str | None, bool], bytes]) -> None:
        """The server stops: each call still running here is answered `answer(id, method, tool,
        ran)`, then cancelled (answered nothing more); the kept lists being written are written."""
        for key, (task, cancelled) in list(self._inflight.items()):  # none before `bind` (a stop while the app loads)
            cancelled[0] = True  # owed nothing more: answered here
            task.cancel()
            if (asked := self._asked.pop(key, None)) is not None and self._send is not None:
                await self._send(answer(asked[0], METHOD, asked[1], True) + b"\n")
        if tasks := [task for task, _ in self._inflight.values()]:
            await asyncio.wait(tasks)
        if self._listing:  # answers given here still being written (a long `tools/list` from a thread)
            await asyncio.wait(list(self._listing))

    async def hand_over(self, server: Callable[[], Server[Any]], wait_s: float, quiet_s: float = QUIET_S) -> None:
        """A stdio start: building the SDK's server holds the loop (~150 ms of imports), so it
        waits until the calls asked so far are answered and no plain call ran here for `quiet_s`
        (a client's first burst of calls is not held up in its middle), or a request only the SDK
        answers arrived (`urgent`: then once the calls running are answered), at most `wait_s`;
        then the server is built and checked (`FastPath.allow`), then it takes the lines that are
        not answered here (`sdk_ready`)."""
        loop = asyncio.get_running_loop()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait_s):
                while True:
                    await self.settled()
                    left = self._last + quiet_s - loop.time()
                    if self.urgent.is_set() or (left <= 0 and not self._inflight):
                        break
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(left):
                            await self.urgent.wait()
        self.path.allow(server())
        self.sdk_ready.set()

    async def aclose(self) -> None:
        """stdin closed: calls still running get `EOF_GRACE_S` to finish (as the SDK's do,
        `service.protocol.sdk_pumps`), then are cancelled and answered "Connection closed"."""
        if running := [task for task, _ in self._inflight.values()]:
            await asyncio.wait(running, timeout=EOF_GRACE_S)
        tasks = [task for task, _ in self._inflight.values()]
        for task in tasks:
            task.cancel()
        if tasks or self._listing:
            await asyncio.gather(*tasks, *self._listing, return_exceptions=True)


def _error_line(rid: str | int, error: types.ErrorData) -> bytes:
    message = types.JSONRPCError(jsonrpc="2.0", id=rid, error=error)
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
