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

    raw_send, raw_recv = anyio.create_memory_object_stream[bytes](10)
    pumps = SdkPumps(send, lambda msg_id, data: True, "front-replay", raw_recv)
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
        tg.start_soon(pumps.pump_in, read_writer, None)
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


async def test_a_stop_answers_what_the_sdk_owes_and_what_it_has_not_read() -> None:
    """SIGTERM over stdio (`service.protocol.stdio_stop`): a request the SDK has not answered is
    answered with the stop's answer (ran), its late answer dropped; a request still queued for it
    (not read by the pump yet) is answered as not started; notifications and the
    front's replays are owed nothing."""
    sent: list[bytes] = []

    async def send(payload: bytes) -> None:
        sent.append(payload)

    def answer(rid: Any, method: str, tool: str | None, ran: bool) -> bytes:
        return json.dumps([rid, method, tool, ran]).encode()

    raw_send, raw_recv = anyio.create_memory_object_stream[bytes](10)
    pumps = SdkPumps(send, lambda msg_id, data: True, "front-replay", raw_recv)
    read_writer, read_stream = anyio.create_memory_object_stream[Any](10)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](10)
    ready = anyio.Event()
    with raw_send, read_stream, write_stream:
        async with anyio.create_task_group() as tg:
            tg.start_soon(pumps.pump_in, read_writer, ready.wait)
            tg.start_soon(pumps.pump_out, write_reader)
            raw_send.send_nowait(_line(id=1, method="tools/call", params={"name": "write_note", "arguments": {}}))
            ready.set()
            assert (await read_stream.receive()).message.id == 1  # the SDK runs it
            for line in (
                _line(id=2, method="ping"),
                _line(method="notifications/initialized"),
                _line(id="front-replay", method="initialize", params={}),
                _line(id=3, method="tools/call", params={"name": "read_note"}),
            ):
                raw_send.send_nowait(line)
            await pumps.stopped(answer)  # no await since: 2 and 3 are still queued, unread
            await write_stream.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={})))
            await anyio.sleep(0.01)
            tg.cancel_scope.cancel()
    assert [json.loads(line) for line in sent] == [
        [1, "tools/call", "write_note", True],
        [2, "ping", None, False],
        [3, "tools/call", "read_note", False],
    ]


async def test_a_stop_before_the_pump_first_ran_answers_the_queued_requests() -> None:
    """A signal while the session attaches: the front has queued the client's requests for the
    SDK, the pump has not run yet (it kept the stream only once it ran, so a stop answered none)."""
    sent: list[bytes] = []

    async def send(payload: bytes) -> None:
        sent.append(payload)

    raw_send, raw_recv = anyio.create_memory_object_stream[bytes](10)
    pumps = SdkPumps(send, lambda msg_id, data: True, "front-replay", raw_recv)
    raw_send.send_nowait(_line(id=4, method="prompts/list"))
    await pumps.stopped(lambda rid, method, tool, ran: json.dumps([rid, method, tool, ran]).encode())
    assert [json.loads(line) for line in sent] == [[4, "prompts/list", None, False]]
    raw_send.close()
    raw_recv.close()


async def test_lines_the_sdk_has_not_taken_count_as_waiting() -> None:
    """The client's lines wait in an unbounded stream while the SDK takes none (its answers wait
    for stdout): they count, so the stdio front stops reading stdin past its bound (P1 s80)."""
    moved = anyio.Event()

    async def send(payload: bytes) -> None:
        return None

    raw_send, raw_recv = anyio.create_memory_object_stream[bytes](float("inf"))
    pumps = SdkPumps(send, lambda msg_id, data: True, "front-replay", raw_recv, moved.set)
    for rid in range(3):
        raw_send.send_nowait(_line(id=rid, method="ping"))
    assert pumps.waiting() == 3 and pumps.owed() == 0
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    async with anyio.create_task_group() as tg, read_stream:
        tg.start_soon(pumps.pump_in, read_writer, None)
        await read_stream.receive()
        with anyio.fail_after(60):
            await moved.wait()
        assert pumps.waiting() == 3 and pumps.owed() >= 1  # taken (owed) or still waiting: three in all
        tg.cancel_scope.cancel()
    raw_send.close()
