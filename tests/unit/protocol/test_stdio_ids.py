"""The stdio front's request ids in flight (`service.protocol.stdio_ids`): a request whose id a
request handed on and not answered carries is refused as the HTTP front refuses it, the first
one kept; each way a request is answered or settled frees its id, before its answer goes out
(the client may send the id again once it read it). The wire itself, on every path:
tests/e2e/test_stdio_request_id_in_flight_e2e.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from service.protocol import shipped_initialize
from service.protocol.framing import reused_id
from service.protocol.sdk_pumps import SdkPumps
from service.protocol.stdio_front import REPLAY_ID, StdioFront
from service.protocol.stdio_ids import IdsInFlight
from tests.unit.protocol.test_fast_calls import _call, _running_call, _settle


def _line(**msg: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n"


def _answers(out: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.fixture
def front(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StdioFront:
    """A front before the SDK attaches, writing to memory (no stored or shipped answers)."""
    import io

    monkeypatch.setattr(shipped_initialize, "SHIPPED", str(tmp_path / "none.json"))
    made = StdioFront(tmp_path, "k")
    made._out = io.BytesIO()
    return made


def test_a_request_reusing_the_id_of_one_waiting_for_the_server_is_refused_and_the_first_kept(
    front: StdioFront,
) -> None:
    front._on_line(_line(id=5, method="prompts/list"))
    front._on_line(_line(id=5, method="tools/call", params={"name": "read_note", "arguments": {"path": "A"}}))
    front._on_line(_line(id="5", method="ping"))  # "5" is 5, as the SDK correlates ids
    front._on_line(_line(method="notifications/initialized"))  # no id: nothing to refuse
    front._on_line(_line(id=6, method="ping"))
    assert _answers(front._out) == [reused_id(5).error(), reused_id("5").error()]
    assert _answers(front._out)[0]["error"] == {
        "code": -32600,
        "message": "Invalid Request: request id 5 is in use by a request in flight on this session "
        "(a request id must not be used twice within a session)",  # the HTTP front's words
    }
    assert [json.loads(line).get("id") for line in front._pending.take()] == [5, None, 6]


def test_a_stop_frees_the_ids_it_answers_and_refuses_nothing_as_reused(front: StdioFront) -> None:
    front._on_line(_line(id=1, method="prompts/list"))
    front._on_line(_line(id=REPLAY_ID, method="ping"))  # the front's own replay id is never held
    assert 1 in front.ids and REPLAY_ID not in front.ids
    front.refuse(lambda msg: json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": 1}}).encode())
    assert len(front.ids) == 0
    front._on_line(_line(id=1, method="ping"))  # answered as stopping, not as reused
    assert [(a["id"], a["error"]["code"]) for a in _answers(front._out)] == [(1, 1), (1, 1)]


def test_a_tools_list_answered_once_the_settings_are_known_frees_its_id(
    front: StdioFront, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(front, "_shipped_list", lambda key, params: front._list_settings and '{"tools":[]}')
    front._list_settings = "s"
    front._on_line(_line(id=3, method="tools/list"))  # answered from the package at once: never held
    assert len(front.ids) == 0
    front._list_settings = None
    front._on_line(_line(id=4, method="tools/list"))  # waits for the settings
    assert 4 in front.ids
    front.settings_loaded("s")
    front._on_line(_line(id=4, method="ping"))  # 4 was answered: free again
    assert [a["id"] for a in _answers(front._out)] == [3, 4]
    assert [json.loads(line)["id"] for line in front._pending.take()] == [4]


async def test_the_sdk_pumps_free_an_id_before_its_answer_and_at_a_cancel_or_the_end() -> None:
    events: list[tuple[str, Any]] = []

    async def send(payload: bytes) -> None:
        events.append(("sent", json.loads(payload)["id"]))

    raw_send, raw_recv = anyio.create_memory_object_stream[bytes](10)
    pumps = SdkPumps(send, lambda msg_id, data: True, REPLAY_ID, raw_recv)
    pumps.freed = lambda rid: events.append(("freed", rid))
    for line in (
        _line(id=1, method="ping"),
        _line(id=2, method="ping"),
        _line(method="notifications/cancelled", params={"requestId": 2}),
        _line(id=3, method="ping"),
    ):
        raw_send.send_nowait(line)
    raw_send.close()
    read_writer, read_stream = anyio.create_memory_object_stream[Any](10)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](10)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("service.protocol.sdk_pumps.EOF_GRACE_S", 0.0)  # 3 is never answered by the SDK
        async with anyio.create_task_group() as tg:
            tg.start_soon(pumps.pump_in, read_writer, None)
            tg.start_soon(pumps.pump_out, write_reader)
            async with read_stream:
                for _ in range(4):
                    await read_stream.receive()
                server_asks = types.JSONRPCRequest(jsonrpc="2.0", id=1, method="roots/list")  # the server's own id 1
                await write_stream.send(SessionMessage(server_asks))
                await write_stream.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={})))
                with anyio.fail_after(30), pytest.raises(anyio.EndOfStream):
                    await read_stream.receive()
                await write_stream.aclose()
    assert events == [("freed", 2), ("sent", 1), ("freed", 1), ("sent", 1), ("freed", 3), ("sent", 3)]


async def test_the_fast_path_frees_an_id_before_its_answer_and_when_its_call_is_cancelled() -> None:
    wire, dispatcher = await _running_call(4)
    freed: list[Any] = []
    wire.fast._freed = lambda rid: freed.append((rid, list(wire.sent)))
    dispatcher.release.set()
    await _settle()
    assert freed == [(4, [])] and len(wire.sent) == 1  # freed, then answered
    dispatcher.release.clear()
    wire.route(_call(rid=5, name="read_note", arguments={}))
    await _settle()
    wire.route({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}})
    await _settle()
    assert [rid for rid, _ in freed] == [4, 5] and len(wire.sent) == 1  # owed nothing: free


async def test_a_kept_tools_list_frees_its_id_before_it_is_written() -> None:
    wire, dispatcher = await _running_call(1)
    freed: list[Any] = []
    wire.fast._kept = lambda msg: '{"tools":[]}'
    wire.fast._freed = lambda rid: freed.append((rid, len(wire.sent)))
    wire.route({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
    await _settle()
    assert freed == [(7, 0)] and json.loads(wire.sent[-1])["id"] == 7
    dispatcher.release.set()
    await _settle()
    assert wire.fast.running() == 0


def test_ids_are_held_as_the_sdk_correlates_them() -> None:
    ids = IdsInFlight()
    ids.take("7")
    assert 7 in ids and "7" in ids and "07" in ids and "x" not in ids
    ids.free(7)
    assert len(ids) == 0
    ids.take("x")
    ids.free("x")
    ids.free("never held")
    assert len(ids) == 0
