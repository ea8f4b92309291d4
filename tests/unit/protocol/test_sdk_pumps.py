"""`SdkPumps` at the end of stdin: the SDK's input stays open until it answered what it was asked;
a request it has not answered within `EOF_GRACE_S` is answered "Connection closed" and its late
answer dropped; a request the client cancelled is owed nothing; the front's own replays are not
the client's."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from service.protocol import sdk_pumps
from service.protocol.sdk_pumps import SdkPumps


def _line(**msg: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **msg}).encode()


async def test_the_input_closes_once_each_request_is_answered_or_its_time_is_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sdk_pumps, "EOF_GRACE_S", 0.2)
    sent: list[dict[str, Any]] = []

    async def send(payload: bytes) -> None:
        sent.append(json.loads(payload))

    pumps = SdkPumps(send, lambda msg_id, data: True, "front-replay")
    raw_send, raw_recv = anyio.create_memory_object_stream[bytes](10)
    read_writer, read_stream = anyio.create_memory_object_stream[Any](10)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](10)
    for line in (
        _line(id=1, method="ping"),
        _line(id=2, method="ping"),
        _line(id=3, method="ping"),
        _line(method="notifications/cancelled", params={"requestId": 3}),
        _line(id="front-replay", method="ping"),
    ):
        raw_send.send_nowait(line)
    raw_send.close()  # the end of stdin
    async with anyio.create_task_group() as tg:
        tg.start_soon(pumps.pump_in, raw_recv, read_writer, None)
        tg.start_soon(pumps.pump_out, write_reader)
        async with read_stream:
            got = [await read_stream.receive() for _ in range(5)]
            assert [getattr(m.message, "id", None) for m in got] == [1, 2, 3, None, "front-replay"]
            await write_stream.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={})))
            # 2 is never answered: once its time is up it is answered here, then the input closes
            with anyio.fail_after(5), pytest.raises(anyio.EndOfStream):
                await read_stream.receive()
            assert sent[-1]["id"] == 2
            await write_stream.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=2, result={})))
            await write_stream.aclose()
    assert sent == [
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "Connection closed"}},
    ]
