"""The two pipes between the stdio front and the SDK's session: the client's lines into its read
stream, its messages out to stdout (`StdioFront.session`).

The end of stdin is the end of the client's questions, not of the answers owed: the SDK's input
stays open until it has answered each request it was given, for up to `EOF_GRACE_S`. Closing it
at once ended the SDK's session with its running requests unanswered (`printf '…' | vaultgate
stdio` lost the last answer when the SDK served it; the fast path had answered it). A request it
has not answered by then is answered "Connection closed" (-32000), as the fast path answers its
own (`FastCalls.aclose`), and an SDK answer to it after that is dropped. A request the client
cancelled (`notifications/cancelled`) is owed nothing.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from service.protocol.framing import INVALID_REQUEST, Refused
from service.protocol.stdio_ids import request_key

EOF_GRACE_S = 10.0  # what requests still running at the end of stdin get to finish


class SdkPumps:
    def __init__(
        self,
        send: Callable[[bytes], Awaitable[None]],
        from_server: Callable[[Any, str], bool],
        skip_id: str,
        raw_recv: Any,
        moved: Callable[[], None] = lambda: None,
    ) -> None:
        """`raw_recv`: the client's lines for the SDK (an anyio receive stream); `moved()` after
        each line the SDK took from it (`waiting` went down: `service.protocol.stdio_out`)."""
        self._moved = moved
        self._send = send  # one line to the client
        self._from_server = from_server  # whether to send an SDK message on (`StdioFront._from_server`)
        self._skip_id = skip_id  # the front's own replays (`stdio_front.REPLAY_ID`): answered to no one
        self._owed: dict[str, Any] = {}  # JSON id -> id of each request the SDK has not answered yet
        self._asked: dict[str, tuple[str, str | None]] = {}  # JSON id -> method, tool name: what a stop answers
        self._raw = raw_recv  # the lines not read yet (`pump_in`): a stop answers the requests among them,
        # also before `pump_in` first ran (a signal while the session attaches)
        self._closed: set[str] = set()  # answered here ("Connection closed", a stop): the SDK's answer is dropped
        self._paid: Any = None  # an `anyio.Event` set once nothing is owed, while one waits for it (`settled`)
        self.freed: Callable[[Any], None] = lambda rid: None  # a request's id is free (`service.protocol.stdio_ids`)

    async def pump_in(self, read_writer: Any, ready: Callable[[], Awaitable[object]] | None) -> None:
        """The client's lines into the SDK's read stream (after `ready`: the SDK's models are loaded)."""
        import anyio

        raw_recv = self._raw
        async with read_writer, raw_recv:
            if ready is not None:
                await ready()
            import mcp_types as types
            from mcp.shared.message import SessionMessage

            async for line in raw_recv:
                try:
                    message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except ValueError as exc:  # past the front, only what pydantic reads stricter
                    if (msg := _parsed(line)) is not None and "method" in msg and "id" in msg:
                        self.freed(msg["id"])  # answered (with id null)
                    await self._send(Refused(INVALID_REQUEST, str(exc).splitlines()[0][:200]).body() + b"\n")
                    continue
                if isinstance(message, types.JSONRPCRequest) and message.id != self._skip_id:
                    key = _key(message.id)
                    self._owed[key] = message.id
                    self._asked[key] = (message.method, _tool_of(message.method, message.params))
                elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
                    key = _key((message.params or {}).get("requestId"))  # "7" and 7 alike, as the SDK's
                    self._asked.pop(key, None)
                    if (rid := self._owed.pop(key, None)) is not None:
                        self.freed(rid)  # the SDK answers a cancelled request nothing
                await read_writer.send(SessionMessage(message))
                self._moved()
            with anyio.move_on_after(EOF_GRACE_S):
                await self.settled()
            for key, rid in list(self._owed.items()):
                self._closed.add(key)
                self.freed(rid)
                closed = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32000, "message": "Connection closed"}}
                await self._send(json.dumps(closed, separators=(",", ":")).encode() + b"\n")

    async def pump_out(self, write_reader: Any) -> None:
        """The SDK's messages to the client (an answer the front keeps to itself is not sent)."""
        import mcp_types as types

        async with write_reader:
            async for session_message in write_reader:
                message = session_message.message
                msg_id = getattr(message, "id", None)
                if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
                    key = _key(msg_id)
                    self._owed.pop(key, None)
                    self._asked.pop(key, None)
                    if not self._owed and self._paid is not None:
                        self._paid.set()
                    if key in self._closed:
                        continue
                    self.freed(msg_id)  # before the answer goes out: the client may then send the id again
                data = message.model_dump_json(by_alias=True, exclude_unset=True)
                if self._from_server(msg_id, data):
                    await self._send(data.encode() + b"\n")

    def owed(self) -> int:
        """How many requests the SDK was given and has not answered."""
        return len(self._owed)

    def waiting(self) -> int:
        """The requests owed and the lines the SDK has not taken yet: while it does not take them
        (its answers wait for stdout, or it is still loading), they wait in `raw_recv`, whose
        buffer is unbounded; the stdio front stops reading stdin past a bound of these (before,
        a client that wrote on without reading stdout grew the server's memory without end)."""
        return len(self._owed) + int(self._raw.statistics().current_buffer_used)

    async def settled(self) -> None:
        """Until the SDK has answered every request it was given (the caller bounds the wait)."""
        import anyio

        while self._owed:
            if self._paid is None or self._paid.is_set():
                self._paid = anyio.Event()
            await self._paid.wait()

    async def stopped(self, answer: Callable[[Any, str, str | None, bool], bytes]) -> None:
        """The server stops: each request the SDK has not answered is answered `answer(id, method,
        tool, ran)` (its later answer is dropped), the requests still queued for it too (not run)."""
        for key, rid in list(self._owed.items()):
            method, tool = self._asked.pop(key, ("", None))
            del self._owed[key]
            self._closed.add(key)
            self.freed(rid)
            await self._send(answer(rid, method, tool, True) + b"\n")
        while True:
            try:
                line = self._raw.receive_nowait()
            except Exception:  # noqa: BLE001 - anyio's WouldBlock, EndOfStream or ClosedResourceError: none left
                break
            msg = _parsed(line)
            if msg is not None and "method" in msg and "id" in msg and msg["id"] != self._skip_id:
                method = str(msg["method"])
                self.freed(msg["id"])
                await self._send(answer(msg["id"], method, _tool_of(method, msg.get("params")), False) + b"\n")
        if self._paid is not None:
            self._paid.set()


def _key(rid: Any) -> str:
    """The key a request is owed under: its id as the SDK correlates it (`stdio_ids.request_key`)."""
    return json.dumps(request_key(rid))


def _tool_of(method: str, params: Any) -> str | None:
    name = params.get("name") if method == "tools/call" and isinstance(params, dict) else None
    return name if isinstance(name, str) else None


def _parsed(line: bytes) -> dict[str, Any] | None:
    try:
        msg = json.loads(line)
    except ValueError:
        return None
    return msg if isinstance(msg, dict) else None
