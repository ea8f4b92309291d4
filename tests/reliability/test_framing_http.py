"""JSON-RPC framing over Streamable HTTP, on a real server: every POSTed body — nested thousands
deep, holding `NaN`, a batch, an id of any JSON type, too large, under any content type, with
any number and size of headers — gets a complete answer that is never an HTTP 500: a JSON-RPC
response or error (a notification: 202), and the connection goes on unless the server said it
closes it (a head over the limit: 431). One server per front: the fast path for plain tool calls
(`fast`) and the SDK's session for everything (`sdk`); both sit behind the one request front
(`service.http.front`, `service.protocol.framing`). An answer sent before its body was read (413,
406) does not turn the rest of that body, read with the start of the next request, into a head
over the limit (`service.http.head_limits`). A ping that is not answered as one reports the
connection's last requests and answers (`Raw.trail`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reliability.fronts import Raw, Response, ServerThread, jsonrpc_answer, messages, sample_settings

MAX_BODY = 256 * 1024
MAX_HEAD = 16 * 1024
IDLE_S = 3.0  # reconnect before uvicorn's 5 s keep-alive ends an idle connection
EXAMPLES = 120
PING = b'{"jsonrpc": "2.0", "id": "alive", "method": "ping"}'
ALIVE = {"jsonrpc": "2.0", "id": "alive", "result": {}}


@pytest.fixture(scope="module", params=["fast", "sdk"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    configured = sample_settings(
        tmp_path_factory.mktemp(f"framing-{request.param}"),
        protocol={"fast_calls": request.param == "fast"},
        http={"max_request_body_bytes": MAX_BODY, "max_header_bytes": MAX_HEAD},
    )
    with ServerThread(configured) as running:
        yield running


@pytest.fixture(scope="module")
def session(server: ServerThread) -> dict[str, str]:
    return server.session()


def call(arguments: str) -> bytes:
    """A `read_note` call whose arguments are the raw JSON text `arguments`."""
    return b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "read_note", "arguments": %s}}' % (
        arguments.encode()
    )


def exchange(raw: Raw, body: bytes, headers: dict[str, str]) -> Response:
    """The answer to `body`; a `PING` must be answered as one (else the connection's trail is told)."""
    raw.post("/mcp", body, headers)
    answer = raw.response()
    if body == PING:
        assert answer.status == 200 and messages(answer) == [ALIVE], ("the ping was not answered", list(raw.trail))
    return answer


def assert_goes_on(raw: Raw, answer: Response, session: dict[str, str]) -> None:
    """The connection that carried `answer` serves the client's next request."""
    assert not answer.closed, answer
    following = exchange(raw, PING, session)
    assert following.status == 200 and following.json() == {"jsonrpc": "2.0", "id": "alive", "result": {}}


def refused(answer: Response, code: int, status: int = 400, rid: Any = None) -> None:
    """A refusal: `rid` is the request's id when the message parsed and named a method and a
    valid id (the client waiting for that id is told), else null."""
    assert answer.status == status, answer
    body = answer.json()
    assert body["id"] == rid and body["error"]["code"] == code, body


@pytest.mark.parametrize(
    "body",
    [
        call('{"path": ' + "[" * 1000 + "]" * 1000 + "}"),
        call('{"path": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}"),
        b"[" * 100_000 + b"]" * 100_000,
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": ' + b"[" * 60_000 + b"]" * 60_000 + b"}}",
    ],
    ids=["args 1000 deep", "args 5000 deep", "body 100000 deep", "ping params 60000 deep"],
)
def test_deep_nesting_is_a_parse_error_and_the_connection_goes_on(
    server: ServerThread, session: dict[str, str], body: bytes
) -> None:
    with Raw(server.port) as raw:
        answer = exchange(raw, body, session)
        refused(answer, -32700)
        assert "deeper" in answer.json()["error"]["message"]
        assert_goes_on(raw, answer, session)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", '"\\ud800"'])
def test_values_that_are_not_strict_json_are_a_parse_error(
    server: ServerThread, session: dict[str, str], literal: str
) -> None:
    with Raw(server.port) as raw:
        for body, rid in (
            # a lone surrogate parses: the call's id is read and echoed; the other literals do not
            (call(f'{{"path": {literal}}}'), 7 if "\\ud" in literal else None),
            (b'{"jsonrpc": "2.0", "id": %s, "method": "ping"}' % literal.encode(), None),
        ):
            answer = exchange(raw, body, session)
            refused(answer, -32700, rid=rid)
            assert_goes_on(raw, answer, session)


@pytest.mark.parametrize(
    "message",
    [
        [{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
        [],
        {"id": 1, "method": "ping"},
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1, "method": 5},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ["read_note"]},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": 1}},
        "ping",
        42,
        None,
    ],
    ids=repr,
)
def test_what_is_not_one_jsonrpc_message_is_an_invalid_request(
    server: ServerThread, session: dict[str, str], message: Any
) -> None:
    with Raw(server.port) as raw:
        answer = exchange(raw, json.dumps(message).encode(), session)
        # a request (a method, a valid id) with params that are no object is told by its id
        rid = 1 if isinstance(message, dict) and isinstance(message.get("params"), list) else None
        refused(answer, -32600, rid=rid)
        assert_goes_on(raw, answer, session)


def test_a_body_over_the_limit_is_413_with_a_jsonrpc_error(server: ServerThread, session: dict[str, str]) -> None:
    with Raw(server.port) as raw:
        answer = exchange(raw, call('{"path": "%s"}' % ("x" * MAX_BODY)), session)
        refused(answer, -32600, 413)
        assert_goes_on(raw, answer, session)


@pytest.mark.parametrize("early", ["406 unacceptable", "413 declared too large"])
def test_the_end_of_a_body_answered_early_read_with_the_next_head_is_not_a_head_over_the_limit(
    server: ServerThread, session: dict[str, str], early: str
) -> None:
    """An answer sent before its body was read: the client sends the rest of the body anyway (as
    HTTP clients do) then its next request; the server may read the body's last bytes (here 20 KB,
    more than a head may hold) with the first bytes of that request's head. They are the request
    before's, not the head's: the head of a few hundred bytes is read to its end and answered."""
    if early.startswith("406"):
        status, body, headers = 406, b"x" * 20_000, {**session, "accept": "text/plain"}
    else:
        status, body, headers = 413, call('{"path": "%s"}' % ("x" * MAX_BODY)), session
    assert len(body[-20_000:]) > MAX_HEAD
    with Raw(server.port) as raw:
        assert raw.send(raw.head("POST", "/mcp", body, headers))
        refused(raw.response(), -32600, status)  # before the body was sent
        raw.sock.sendall(body[:-20_000])  # the body but its end, read (and dropped)
        raw.delivered()
        assert server.alive()  # the server has read it: it came before another client's request
        following = raw.head("POST", "/mcp", PING, session)
        raw.sock.sendall(body[-20_000:] + following[:40])  # one write, one read: 20 KB of body, then 40 bytes of head
        raw.delivered()
        assert server.alive()  # the server has read them (what it made of them is answered below)
        raw.send(following[40:] + PING)  # not sent if the server has answered already
        answer = raw.response()
        assert answer.status == 200 and answer.json() == ALIVE, ("the ping after the body", answer, list(raw.trail))
        assert_goes_on(raw, answer, session)


def test_a_plain_call_still_answers_through_the_front(server: ServerThread, session: dict[str, str]) -> None:
    with Raw(server.port) as raw:
        answer = exchange(raw, call('{"path": "Welcome"}'), session)
        assert answer.status == 200
        assert answer.json()["result"]["structuredContent"]["title"] == "Welcome"


@pytest.mark.parametrize("content_type", ["Application/JSON", "APPLICATION/JSON; charset=UTF-8"])
def test_a_media_type_in_capitals_is_json(server: ServerThread, session: dict[str, str], content_type: str) -> None:
    """Media types are case-insensitive (RFC 9110): before, the transport answered 415."""
    with Raw(server.port) as raw:
        answer = exchange(raw, call('{"path": "Welcome"}'), {**session, "content-type": content_type})
        assert answer.status == 200, answer
        assert answer.json()["result"]["structuredContent"]["title"] == "Welcome"
        assert_goes_on(raw, answer, session)
        refused(exchange(raw, call('{"path": "Welcome"}'), {**session, "content-type": "Text/Plain"}), -32600, 415)


# -- the fuzz -------------------------------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)
ODD_LITERALS = [
    "NaN",
    "-Infinity",
    "Infinity",
    "1e400",
    "-0",
    "1E-400",
    '"\\ud800"',
    '"\\udc00x"',
    '"\\u0000"',
    "1" * 30,
]
METHODS = ["tools/call", "ping", "tools/list", "resources/list", "prompts/list", "notifications/cancelled", "no/such"]


@st.composite
def messages_(draw: st.DrawFn) -> dict[str, Any]:
    """A JSON-RPC message: most of the time a well-formed one, else any field of any JSON type."""
    clean = draw(st.integers(0, 9)) < 6

    def either(good: st.SearchStrategy[Any]) -> Any:
        return draw(good) if clean or draw(st.booleans()) else draw(VALUES)

    message: dict[str, Any] = {}
    if clean or draw(st.integers(0, 4)):
        message["jsonrpc"] = either(st.just("2.0"))
    shape = draw(st.sampled_from(["request"] * 6 + ["notification", "response"]))
    if shape != "response":
        message["method"] = either(st.sampled_from(METHODS))
    if shape != "notification":
        message["id"] = either(st.integers(-(2**63), 2**63) | st.text(max_size=8))
    if shape == "response":
        error = st.fixed_dictionaries({"code": st.integers(-33000, 0), "message": st.text(max_size=8)})
        message[draw(st.sampled_from(["result", "error"]))] = either(error)
    if message.get("method") == "tools/call" or draw(st.integers(0, 3)) == 0:
        path = either(st.sampled_from(["Welcome", "Projects/Plan", "Missing"]))
        name = draw(st.sampled_from(["read_note", "search_text", "no_such_tool"]))
        params: Any = {"name": name, "arguments": {"path": path}}
        message["params"] = params if clean or draw(st.integers(0, 3)) else draw(VALUES)
    return message


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["message"] * 6 + ["batch", "deep", "literal", "garbage", "cut", "large"]))
    if kind == "batch":
        return json.dumps(draw(st.lists(messages_(), max_size=3))).encode()
    if kind == "deep":
        depth = draw(st.integers(150, 4000))
        return call('{"path": ' + "[" * depth + "]" * depth + "}")
    if kind == "literal":
        return call(f'{{"path": {draw(st.sampled_from(ODD_LITERALS))}}}')
    if kind == "garbage":
        return draw(st.binary(max_size=64))
    text = json.dumps(draw(messages_())).encode()  # json.dumps writes NaN/Infinity for such floats
    if kind == "cut":
        return text[: draw(st.integers(0, max(0, len(text) - 1)))]
    if kind == "large":
        return call('{"path": "Welcome", "pad": "%s"}' % ("x" * draw(st.integers(MAX_BODY - 200, MAX_BODY + 200))))
    return text


@st.composite
def header_sets(draw: st.DrawFn, session: dict[str, str]) -> dict[str, str]:
    headers = dict(session)
    era = draw(st.sampled_from(["session"] * 6 + ["no session", "2026-07-28"]))
    if era != "session":
        del headers["mcp-session-id"]
    if era == "2026-07-28":
        headers["mcp-protocol-version"] = "2026-07-28"
    content_type = draw(
        st.sampled_from(
            ["application/json"] * 10
            + [
                "application/json; charset=utf-8",
                "text/plain",
                "",
                "application/json-rpc",
                "text/plain, application/json",
                "Application/JSON",
            ]
        )
    )
    if content_type:
        headers["content-type"] = content_type
    else:
        del headers["content-type"]
    if not draw(st.integers(0, 6)):
        headers["accept"] = draw(st.sampled_from(["application/json", "text/event-stream", "*/*"]))
    for n in range(draw(st.sampled_from([0] * 6 + [5, 90, 150]))):
        headers[f"x-extra-{n}"] = "v"
    big = draw(st.sampled_from([0] * 10 + [1000, MAX_HEAD - 2000, MAX_HEAD + 1, 4 * MAX_HEAD]))
    if big:
        headers["x-big"] = "b" * big
    return headers


@pytest.mark.usefixtures("server")
def test_fuzzed_framing_never_gets_a_500_nor_a_dropped_connection(
    server: ServerThread, session: dict[str, str]
) -> None:
    raw_box = [Raw(server.port)]
    outcomes: dict[int, int] = {}
    last = [time.monotonic()]  # the connection's last exchange

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(body=bodies(), headers=header_sets(session))
    def post(body: bytes, headers: dict[str, str]) -> None:
        if time.monotonic() - last[0] > IDLE_S:  # uvicorn ends a connection idle for 5 s (a loaded machine)
            raw_box[0].sock.close()
            raw_box[0] = Raw(server.port)
        raw = raw_box[0]
        raw.post("/mcp", body, headers)
        answer = raw.response()  # ConnectionError: the server dropped the connection
        outcomes[answer.status] = outcomes.get(answer.status, 0) + 1
        assert answer.status < 500, (answer, body[:200], headers)
        if answer.status == 202:
            assert answer.body == b""
        else:
            found = messages(answer)
            assert found and all(jsonrpc_answer(m) for m in found), (answer, body[:200])
        if answer.closed:
            assert answer.status == 431, answer  # only a head over the limit ends the connection
            raw.sock.close()
            raw_box[0] = Raw(server.port)
        else:
            assert exchange(raw, PING, session).json()["id"] == "alive"
        last[0] = time.monotonic()

    try:
        post()
    finally:
        raw_box[0].sock.close()
    assert server.alive()
    assert {200, 202, 400} <= outcomes.keys(), outcomes  # the fuzz reached the tools and the refusals
    print(sorted(outcomes.items()))
