"""The stdio fast path's rules and wire answers, on a stand-in dispatcher (the real server, byte
for byte against the SDK's path: tests/e2e/test_fast_calls_e2e.py)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any, cast

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import methods
from pydantic import BaseModel, ValidationError

from service.dispatch.context import ToolResult
from service.dispatch.entry import to_call_tool_result
from service.errors import NoteNotFound
from service.protocol import fast_calls
from service.protocol.client_log import ClientLogs
from service.protocol.fast_calls import FastCalls
from service.protocol.fast_path import CallRequest, FastPath
from service.protocol.stdio_front import REPLAY_ID
from service.types import Principal

VERSION = "2025-11-25"
MODERN = "2026-07-28"
STAMP = {"name": "vaultgate", "title": "vaultgate", "version": "0.1.0"}
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


class _Dispatcher:
    """What the fast path uses of `Dispatcher`: the registry, the principal, `call`."""

    def __init__(self, outcome: Any = None) -> None:
        self.registry = {
            "read_note": SimpleNamespace(mutating=False, confirm="never", task_support=False, domain="notes"),
            "write_note": SimpleNamespace(mutating=True, confirm="conditional", task_support=False, domain="notes"),
            "append_note": SimpleNamespace(mutating=True, confirm="never", task_support=False, domain="notes"),
            "run_plan": SimpleNamespace(mutating=True, confirm="never", task_support=True, domain="sessions"),
            "find_capability": SimpleNamespace(mutating=False, confirm="never", task_support=False, domain="facade"),
        }
        self.outcome = outcome if outcome is not None else ToolResult(structured={"title": "Welcome"}, text="{}")
        self.calls: list[tuple[str, Any, dict[str, Any]]] = []
        self.release = asyncio.Event()
        self.hold = False

    def principal_for(self, ctx: Any) -> tuple[Principal, str]:
        assert ctx.request is None
        return Principal.local("stdio"), "stdio"

    async def call(self, tool: str, arguments: Any, **options: Any) -> ToolResult:
        self.calls.append((tool, arguments, options))
        if self.hold:
            await self.release.wait()
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return cast(ToolResult, self.outcome)


class _Wire:
    def __init__(self, dispatcher: _Dispatcher, logs: ClientLogs | None = None) -> None:
        server = SimpleNamespace(middleware=[], cache_hints={}, server_info_stamp=STAMP)
        self.fast = FastCalls(FastPath(cast(Any, dispatcher), cast(Any, server), logs or ClientLogs()))
        self.forwarded: list[bytes] = []
        self.sent: list[bytes] = []

        async def send(payload: bytes) -> None:
            self.sent.append(payload)

        self.fast.bind(self.forwarded.append, send)

    def route(self, msg: dict[str, Any]) -> bytes:
        line = json.dumps(msg).encode() + b"\n"
        self.fast.route(line, msg)
        return line


class _Connection:
    def __init__(self) -> None:
        self.state: dict[str, Any] = {}


def _call(rid: Any = 1, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def _sdk_line(rid: Any, result: ToolResult, version: str = VERSION) -> bytes:
    """The response line the SDK's path writes for `result` (entry, runner, dispatcher, front;
    at 2026-07-28 with the runner's `serverInfo` stamp)."""
    dumped = to_call_tool_result(result).model_dump(by_alias=True, mode="json", exclude_none=True)
    shaped = methods.serialize_server_result("tools/call", version, dumped)
    if version == MODERN:
        shaped["_meta"] = {**shaped.get("_meta", {}), "io.modelcontextprotocol/serverInfo": STAMP}
    response = types.JSONRPCResponse(jsonrpc="2.0", id=rid, result=shaped)
    return response.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_nothing_runs_here_before_the_handshake_was_answered() -> None:
    wire = _Wire(_Dispatcher())
    line = wire.route(_call(name="read_note", arguments={"path": "Welcome"}))
    assert wire.forwarded == [line] and not wire.fast._inflight
    wire.fast.initialized("2026-07-28", "")  # not a handshake version: the SDK keeps serving
    wire.route(_call(name="read_note", arguments={"path": "Welcome"}))
    assert len(wire.forwarded) == 2


@pytest.mark.parametrize(
    "msg",
    [
        _call(name="read_note", arguments={"path": "W"}, _meta={"progressToken": 1}),
        _call(name="read_note", arguments={"path": "W"}, _meta={"io.modelcontextprotocol/logLevel": "debug"}),
        _call(name="read_note", arguments={"path": "W"}, _meta={"traceparent": "00-ab-cd-01"}),
        _call(name="read_note", arguments={"path": "W"}, task={"ttl": 1000}),
        _call(name="read_note", arguments=["W"]),
        _call(name="read_note", arguments=None),
        _call(name=7),
        _call(),
        _call(name="read_note", _meta="x"),
        _call(rid=True, name="read_note"),
        _call(rid=2**63, name="read_note"),
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "read_note"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read_note"}, "extra": 1},
        {"jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": {"name": "read_note"}},
        _call(name="run_plan", arguments={}),
        _call(name="find_capability", arguments={"query": "x"}),
    ],
)
async def test_anything_the_sdk_session_or_surface_must_see_goes_to_the_sdk(msg: dict[str, Any]) -> None:
    dispatcher = _Dispatcher()
    wire = _Wire(dispatcher)
    wire.fast.initialized(VERSION, "")
    line = wire.route(msg)
    await _settle()
    assert wire.forwarded == [line] and dispatcher.calls == [] and wire.sent == []


@pytest.mark.parametrize("can_elicit", [False, True])
async def test_a_write_runs_here_unless_it_may_ask_a_client_that_can_be_asked(can_elicit: bool) -> None:
    """A write that never asks runs here; one that may ask for confirmation runs here only for a
    client without `elicitation` (it would be answered `elicit_required` on either path)."""
    dispatcher = _Dispatcher()
    wire = _Wire(dispatcher)
    wire.fast.initialized(VERSION, json.dumps({"capabilities": {"elicitation": {}} if can_elicit else {}}))
    wire.route(_call(rid=1, name="append_note", arguments={"path": "a", "content": "b"}))
    line = wire.route(_call(rid=2, name="write_note", arguments={"path": "a", "content": "b"}))
    await _settle()
    ran = [tool for tool, _, _ in dispatcher.calls]
    assert ran == (["append_note"] if can_elicit else ["append_note", "write_note"])
    assert wire.forwarded == ([line] if can_elicit else [])


async def test_a_plain_call_runs_here_with_the_stdio_principal_and_its_own_meta() -> None:
    dispatcher = _Dispatcher()
    wire = _Wire(dispatcher)
    wire.fast.initialized(VERSION, "")
    wire.route(_call(rid="r-ü", name="read_note", arguments={"path": "W"}, _meta={"vaultgate/idempotency_key": "k"}))
    wire.route(_call(rid=-5, name="no_such_tool"))  # unknown: the chain answers unknown_tool
    await _settle()
    assert wire.forwarded == []
    assert [(tool, args) for tool, args, _ in dispatcher.calls] == [
        ("read_note", {"path": "W"}),
        ("no_such_tool", None),
    ]
    options = dispatcher.calls[0][2]
    meta = {"vaultgate/idempotency_key": "k"}
    assert options == {
        "principal": Principal.local("stdio"),
        "transport": "stdio",
        "request": CallRequest(None, meta, "r-ü"),
        "meta": meta,
    }
    assert wire.sent == [_sdk_line("r-ü", dispatcher.outcome), _sdk_line(-5, dispatcher.outcome)]
    assert wire.fast.answered == 2


@pytest.mark.parametrize(
    "result",
    [
        ToolResult(structured={"title": "Ünïcode ✓", "n": 1.5, "big": 2**60, "none": None, "list": [1, "a"]}, text="x"),
        ToolResult(structured=None, text="plain"),
        ToolResult.failure(NoteNotFound("no such note", details={"path": "x.md"})),
        ToolResult(structured={"a": 1}, text="t", extra_content=[types.TextContent(type="text", text="more")]),
    ],
)
async def test_the_answer_is_the_line_the_sdk_writes(result: ToolResult) -> None:
    wire = _Wire(_Dispatcher(result))
    wire.fast.initialized(VERSION, "")
    wire.route(_call(rid=9, name="read_note", arguments={}))
    await _settle()
    assert wire.sent == [_sdk_line(9, result)]


@pytest.mark.parametrize(
    "result",
    [
        ToolResult(structured={"title": "Welcome", "n": [1, None]}, text="{}"),
        ToolResult(structured=None, text="plain"),
        ToolResult.failure(NoteNotFound("no such note", details={"path": "x.md"})),
        ToolResult(structured={"a": 1}, text="t", extra_content=[types.TextContent(type="text", text="more")]),
    ],
)
async def test_a_2026_call_runs_here_once_that_era_opened_and_is_answered_as_the_sdk_answers(
    result: ToolResult,
) -> None:
    wire = _Wire(_Dispatcher(result))
    call = _call(rid=9, name="read_note", arguments={}, _meta={**ENVELOPE, "vaultgate/idempotency_key": "k"})
    wire.route(call)
    assert len(wire.forwarded) == 1  # the era is not known yet: the SDK's
    wire.fast.opened(True)
    wire.route(call)
    await _settle()
    assert wire.sent == [_sdk_line(9, result, MODERN)]


@pytest.mark.parametrize(
    "meta",
    [
        {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01"},  # the SDK answers the error
        {k: v for k, v in ENVELOPE.items() if not k.endswith("clientCapabilities")},  # refused by the SDK
        {**ENVELOPE, "io.modelcontextprotocol/logLevel": "debug"},  # its log notifications ride the SDK
        {**ENVELOPE, "progressToken": "p"},
        {"vaultgate/idempotency_key": "k"},  # no envelope on a 2026-07-28 connection
    ],
)
async def test_a_2026_call_the_sdk_must_see_goes_to_the_sdk(meta: dict[str, Any]) -> None:
    wire = _Wire(_Dispatcher())
    wire.fast.opened(True)
    wire.route(_call(rid=3, name="read_note", arguments={}, _meta=meta))
    await _settle()
    assert len(wire.forwarded) == 1 and wire.sent == []


async def test_a_2026_client_that_can_be_asked_gets_confirmable_writes_through_the_sdk() -> None:
    wire = _Wire(_Dispatcher())
    wire.fast.opened(True)
    asking = {**ENVELOPE, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    wire.route(_call(rid=1, name="write_note", arguments={}, _meta=asking))
    wire.route(_call(rid=2, name="append_note", arguments={}, _meta=asking))
    wire.route(_call(rid=3, name="write_note", arguments={}, _meta=ENVELOPE))
    await _settle()
    assert len(wire.forwarded) == 1 and len(wire.sent) == 2


async def test_a_2026_call_is_the_sdks_until_its_server_is_built() -> None:
    """The answer carries the server's `serverInfo` stamp: known once the SDK's server is built."""
    dispatcher = _Dispatcher()
    fast = FastCalls(FastPath(cast(Any, dispatcher), None, ClientLogs()))
    forwarded: list[bytes] = []

    async def send(payload: bytes) -> None:
        raise AssertionError("answered before the server was built")

    fast.bind(forwarded.append, send)
    fast.opened(True)
    msg = _call(rid=1, name="read_note", arguments={}, _meta=ENVELOPE)
    fast.route(json.dumps(msg).encode(), msg)
    assert len(forwarded) == 1 and dispatcher.calls == []


@pytest.mark.parametrize(
    "structured",
    [
        {"title": "Ünïcode ✓", "content": 'a "quoted"\nline\t\u0000 \U0001f600', "n": 1.5, "big": 2**60, "none": None},
        {"path": "a.md", "properties": {"nested": [1, {"x": None}]}, "tags": [], "mtime": 1.7e9},
        {},
    ],
)
async def test_the_answer_written_from_the_governors_bytes_is_the_line_the_sdk_writes(
    structured: dict[str, Any],
) -> None:
    """The structured content reaches the wire as the governor serialized it (not a second
    time): the line is still the SDK's, byte for byte."""
    from service.dispatch.context import CallContext
    from service.dispatch.governor import Governor
    from service.settings import GovernorSettings

    async def handler(call: CallContext) -> ToolResult:
        return ToolResult(structured=structured, text="the note's text ✓")

    call = CallContext(tool="read_note", raw_args={}, principal=Principal.local("stdio"), transport="stdio")
    governed = await Governor(GovernorSettings())(call, handler)
    assert governed.structured_json is not None
    # a space the SDK would not write: it stays only if these bytes are written as they are
    governed.structured_json = governed.structured_json.replace(b"{", b"{ ", 1)
    wire = _Wire(_Dispatcher(governed))
    wire.fast.initialized(VERSION, "")
    wire.route(_call(rid=9, name="read_note", arguments={}))
    await _settle()
    (line,) = wire.sent
    assert b'"structuredContent":{ ' in line  # the governor's bytes, not a second serialization
    assert line.replace(b'"structuredContent":{ ', b'"structuredContent":{') == _sdk_line(9, governed)


async def test_a_client_that_set_a_log_level_is_served_by_the_sdk() -> None:
    logs = ClientLogs()
    wire = _Wire(_Dispatcher(), logs)
    wire.fast.initialized(VERSION, "")
    wire.route({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}})
    wire.route(_call(rid=2, name="read_note", arguments={}))
    assert len(wire.forwarded) == 2  # the level is set by the SDK's handler, after this line was routed

    other = _Wire(_Dispatcher(), logs)
    other.fast.initialized(VERSION, "")
    conn = _Connection()
    logs.set_level(SimpleNamespace(session=SimpleNamespace(_connection=conn)), "info")
    other.route(_call(rid=3, name="read_note", arguments={}))
    assert len(other.forwarded) == 1


@pytest.mark.parametrize(
    ("raised", "error"),
    [
        (RuntimeError("boom"), {"code": 0, "message": "boom"}),
        (MCPError(-32602, "bad", {"x": 1}), {"code": -32602, "message": "bad", "data": {"x": 1}}),
        ("validation", {"code": -32602, "message": "Invalid request parameters", "data": ""}),
    ],
)
async def test_an_exception_is_answered_as_the_sdk_answers_it(raised: Any, error: dict[str, Any]) -> None:
    if raised == "validation":

        class M(BaseModel):
            a: int

        try:
            M.model_validate({"a": "x"})
        except ValidationError as exc:
            raised = exc
    wire = _Wire(_Dispatcher(raised))
    wire.fast.initialized(VERSION, "")
    wire.route(_call(rid="e", name="read_note", arguments={}))
    await _settle()
    assert [json.loads(line) for line in wire.sent] == [{"jsonrpc": "2.0", "id": "e", "error": error}]


async def _running_call(rid: int) -> tuple[_Wire, _Dispatcher]:
    """A wire whose `read_note` call `rid` runs on until its dispatcher's `release` is set."""
    dispatcher = _Dispatcher()
    dispatcher.hold = True
    wire = _Wire(dispatcher)
    wire.fast.initialized(VERSION, "")
    wire.route(_call(rid=rid, name="read_note", arguments={}))
    await _settle()
    return wire, dispatcher


async def test_a_cancelled_call_is_never_answered_and_the_cancel_stays_here() -> None:
    wire, dispatcher = await _running_call(4)
    ((task, _),) = wire.fast._inflight.values()
    wire.route({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "4"}})  # "4" is 4
    await _settle()
    assert task.done() and not wire.fast._inflight
    assert wire.sent == [] and wire.forwarded == []
    cancel_other = wire.route({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}})
    assert wire.forwarded == [cancel_other]  # not ours: the SDK's


async def test_calls_still_running_at_the_end_are_answered_connection_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast_calls, "EOF_GRACE_S", 0.05)  # the time a running call gets to finish
    wire, dispatcher = await _running_call(5)
    await wire.fast.aclose()
    closed = types.JSONRPCError(
        jsonrpc="2.0", id=5, error=types.ErrorData(code=types.CONNECTION_CLOSED, message="Connection closed")
    )
    assert wire.sent == [closed.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"]


async def test_the_sdk_server_is_built_and_reads_only_after_the_calls_asked_before_are_answered() -> None:
    wire, dispatcher = await _running_call(6)
    built: list[int] = []  # calls still running when the server was built

    def server() -> Any:
        built.append(len(wire.fast._inflight))
        return SimpleNamespace(middleware=[], cache_hints={}, server_info_stamp=STAMP)

    handing = asyncio.create_task(wire.fast.hand_over(server, wait_s=60))
    await _settle()
    assert built == [] and not wire.fast.sdk_ready.is_set()
    dispatcher.release.set()
    await asyncio.wait_for(handing, timeout=60)
    assert built == [0] and wire.fast.sdk_ready.is_set() and len(wire.sent) == 1
    assert wire.fast.path.enabled  # the server built does nothing per call the fast path leaves out


async def test_a_call_that_runs_on_does_not_hold_the_sdk_server_back_past_the_wait() -> None:
    wire, dispatcher = await _running_call(7)
    await asyncio.wait_for(
        wire.fast.hand_over(lambda: SimpleNamespace(middleware=[], cache_hints={}, server_info_stamp=STAMP), 0.01), 10
    )
    assert wire.fast.sdk_ready.is_set() and wire.fast._inflight  # still running, answered later
    dispatcher.release.set()
    await wire.fast.aclose()


async def test_a_burst_of_plain_calls_is_not_held_up_by_building_the_sdk_server() -> None:
    wire, dispatcher = await _running_call(8)
    built: list[int] = []

    def server() -> Any:
        built.append(len(wire.sent))
        return SimpleNamespace(middleware=[], cache_hints={}, server_info_stamp=STAMP)

    handing = asyncio.create_task(wire.fast.hand_over(server, wait_s=60, quiet_s=60))
    dispatcher.release.set()
    await _settle()
    # the replayed handshake and notifications can wait; the next call of the burst runs here first
    wire.route({"jsonrpc": "2.0", "id": REPLAY_ID, "method": "initialize", "params": {}})
    wire.route({"jsonrpc": "2.0", "method": "notifications/initialized"})
    wire.route(_call(rid=9, name="read_note", arguments={}))
    await _settle()
    assert built == [] and len(wire.sent) == 2
    wire.route({"jsonrpc": "2.0", "id": 10, "method": "prompts/list"})  # only the SDK answers it: built now
    await asyncio.wait_for(handing, timeout=60)
    assert built == [2] and wire.fast.sdk_ready.is_set()


def test_the_envelope_keys_spelled_here_are_the_sdks() -> None:
    """fast_calls and fast_path spell the 2026-07-28 `_meta` keys themselves (reading a name of
    `mcp_types` loads every protocol model at a stdio start): they must be the SDK's."""
    import mcp_types

    from service.protocol.fast_calls import MODERN_META
    from service.protocol.fast_path import SERVER_INFO_META_KEY

    assert {
        mcp_types.PROTOCOL_VERSION_META_KEY,
        mcp_types.CLIENT_INFO_META_KEY,
        mcp_types.CLIENT_CAPABILITIES_META_KEY,
    } == MODERN_META
    assert SERVER_INFO_META_KEY == mcp_types.SERVER_INFO_META_KEY


async def test_a_2026_connection_that_later_sends_initialize_stays_2026() -> None:
    """The SDK refuses `initialize` on a connection a 2026-07-28 request opened, and then every
    call without the envelope; the fast path leaves such calls to it (review R2 s63 #5: the front's
    stored `initialize` answer made it serve them)."""
    wire = _Wire(_Dispatcher())
    wire.fast.opened(True)
    wire.fast.initialized(VERSION, "")
    wire.route(_call(rid=1, name="read_note", arguments={}))
    wire.route(_call(rid=2, name="read_note", arguments={}, _meta=ENVELOPE))
    await _settle()
    assert [json.loads(line)["id"] for line in wire.forwarded] == [1]
    assert [json.loads(line)["id"] for line in wire.sent] == [2]


async def test_a_stop_answers_the_calls_still_running_and_nothing_after() -> None:
    """SIGTERM over stdio (`service.protocol.stdio_stop`): a call still running is answered with
    the stop's answer, cancelled, and never answered again."""
    wire, dispatcher = await _running_call(7)
    ((task, _),) = wire.fast._inflight.values()
    asked: list[tuple[Any, str, str | None, bool]] = []

    def answer(rid: Any, method: str, tool: str | None, ran: bool) -> bytes:
        asked.append((rid, method, tool, ran))
        return b'{"stopped":%d}' % rid

    await wire.fast.stopped(answer)
    dispatcher.release.set()
    await _settle()
    assert asked == [(7, "tools/call", "read_note", True)]
    assert task.done() and wire.sent == [b'{"stopped":7}\n'] and not wire.fast._inflight


async def test_a_stop_before_the_session_attached_answers_nothing_and_does_not_fail() -> None:
    """A signal while the app builds the session (`FastCalls` made, not bound yet): the stop found
    no call to answer but failed on the unbound writer (an AssertionError out of the stop, a
    traceback and status 1 instead of 0)."""
    server = SimpleNamespace(middleware=[], cache_hints={}, server_info_stamp=STAMP)
    fast = FastCalls(FastPath(cast(Any, _Dispatcher()), cast(Any, server), ClientLogs()))
    await fast.stopped(lambda rid, method, tool, ran: b"{}")
    assert not fast._inflight


async def test_a_stop_writes_the_kept_lists_still_being_written() -> None:
    """A `tools/list` answered from the kept list is written by a task of its own (a long one from
    a worker thread); a stop right after it returned before the write and the process exited with
    the request unanswered."""
    server = SimpleNamespace(middleware=[], cache_hints={}, server_info_stamp=STAMP)
    fast = FastCalls(FastPath(cast(Any, _Dispatcher()), cast(Any, server), ClientLogs()))
    sent: list[bytes] = []

    async def slow_send(payload: bytes) -> None:
        await asyncio.sleep(0.05)  # a long list written from a thread
        sent.append(payload)

    fast.bind([].append, slow_send, lambda msg: '{"tools":[]}')
    msg = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "0"}}
    fast.route(json.dumps(msg).encode() + b"\n", msg)
    await fast.stopped(lambda rid, method, tool, ran: b"{}")
    assert sent == [b'{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}\n']


@pytest.mark.parametrize("params", [None, {}])
async def test_a_handshake_ping_is_answered_here_as_the_sdk_answers_it(params: dict[str, Any] | None) -> None:
    """A `ping` cost the SDK's session ~0.4 ms of CPU and as much of the round trip (its streams,
    models and tasks; a trivial stdio server answers in ~0.02 ms): answered here, with the SDK's
    bytes (`{"result":{}}`, checked against a real `vaultgate stdio` before the change)."""
    dispatcher = _Dispatcher()
    wire = _Wire(dispatcher)
    wire.fast.initialized(VERSION, "")
    wire.route({"jsonrpc": "2.0", "id": 5, "method": "ping", **({} if params is None else {"params": params})})
    await _settle()
    expected = types.JSONRPCResponse(jsonrpc="2.0", id=5, result={})
    assert wire.sent == [expected.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"]
    assert wire.sent == [b'{"jsonrpc":"2.0","id":5,"result":{}}\n']
    assert wire.forwarded == [] and dispatcher.calls == []


@pytest.mark.parametrize(
    ("msg", "era"),
    [
        ({"jsonrpc": "2.0", "id": 5, "method": "ping"}, None),  # before the handshake was answered
        ({"jsonrpc": "2.0", "id": 5, "method": "ping"}, "modern"),  # a 2026-07-28 connection: the SDK's rules
        ({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"_meta": {"a": 1}}}, VERSION),
        ({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"_meta": 5}}, VERSION),  # its -32602
        ({"jsonrpc": "2.0", "id": 5, "method": "ping", "extra": 1}, VERSION),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, VERSION),
    ],
)
async def test_any_other_ping_goes_to_the_sdk(msg: dict[str, Any], era: str | None) -> None:
    wire = _Wire(_Dispatcher())
    if era == "modern":
        wire.fast.opened(True)
    elif era is not None:
        wire.fast.initialized(era, "")
    line = wire.route(msg)
    await _settle()
    assert wire.forwarded == [line] and wire.sent == []


async def test_a_call_cancelled_before_it_ran_lets_go_of_its_id_and_its_slot() -> None:
    """A `notifications/cancelled` routed in the same loop turn as its call (one read of stdin
    holding both lines) cancels the call's task before its first step, so `_run` never ran: the
    call stayed counted as running and its id in flight for good; 64 such calls held every later
    line (`stdio_out.HOLD_AT`), the server answering nothing more."""
    freed: list[Any] = []
    ended: list[int] = []
    wire = _Wire(_Dispatcher())
    wire.fast.bind(wire.forwarded.append, wire.fast._send, None, freed.append)
    wire.fast.ended = lambda: ended.append(1)
    wire.fast.initialized(VERSION, "")
    for rid in range(1, 71):
        wire.route(_call(rid=rid, name="read_note", arguments={}))
        wire.route({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})
    await _settle()
    assert wire.fast.running() == 0 and not wire.fast._asked
    assert sorted(freed) == list(range(1, 71)) and len(ended) == 70
    assert wire.sent == [] and wire.forwarded == []  # owed nothing, and the cancels stayed here
