"""JSON-RPC framing over stdio, on a spawned `vaultgate stdio`: every line — nested thousands
deep, holding `NaN`, a batch, an id of any JSON type, over the size limit, not JSON at all — is
answered with a JSON-RPC error (id null) or its own answer, in order, and the server goes on
reading (a 3,000-deep line used to end the reader thread, and with it the connection; a `NaN`
or a malformed line got no answer at all). One process per front — the fast path for plain tool
calls (`fast`) and the SDK's session for everything (`sdk`); the stdio front
(`service.protocol.stdio_front`) runs the one framing step (`service.protocol.framing`) before
the SDK's session and the fast path for plain tool calls.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.protocol.stdin_lines import MAX_LINE
from tests.conftest import DEFAULT_VAULT, write_files
from tests.reliability.fronts import StdioProcess
from tests.reliability.test_framing_http import ODD_LITERALS, messages_

EXAMPLES = 150


@pytest.fixture(scope="module", params=["fast", "sdk"])
def stdio(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioProcess]:
    base = tmp_path_factory.mktemp(f"framing-stdio-{request.param}")
    root = base / "vault"
    root.mkdir()
    write_files(root, dict(DEFAULT_VAULT))
    env = dict(os.environ, XDG_CACHE_HOME=str(base / "cache"), XDG_DATA_HOME=str(base / "data"))
    env["VAULTGATE_PROTOCOL__FAST_CALLS"] = "true" if request.param == "fast" else "false"
    with StdioProcess(root, env) as process:
        yield process


def call(arguments: str, rid: Any = 7) -> bytes:
    return b'{"jsonrpc": "2.0", "id": %s, "method": "tools/call", "params": {"name": "read_note", "arguments": %s}}' % (
        json.dumps(rid).encode(),
        arguments.encode(),
    )


SENTINELS = iter(range(10**9))


def refusals_then_alive(stdio: StdioProcess, line: bytes) -> list[dict[str, Any]]:
    """Send `line`, then a question only the SDK answers: the answers that came before its answer
    (which must come). Not a ping: the front answers a bare ping itself (`handshake.bare_ping`),
    ahead of what an earlier line still waits for in the SDK, whose answer then fell into the next
    line's count."""
    stdio.send(line)
    sentinel = f"sentinel-{next(SENTINELS)}"
    stdio.send(json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "prompts/list"}).encode())
    return stdio.answers_before(sentinel)


def one_refusal(answers: list[dict[str, Any]], code: int, rid: Any = None) -> None:
    """One refusal: `rid` is the request's id when the line parsed and named a method and a
    valid id (the client waiting for that id is told), else null."""
    assert len(answers) == 1, answers
    assert answers[0]["id"] == rid and answers[0]["error"]["code"] == code, answers


@pytest.mark.parametrize(
    "line",
    [
        call('{"path": ' + "[" * 3000 + "]" * 3000 + "}"),
        call('{"path": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}"),
        b"[" * 100_000 + b"]" * 100_000,
    ],
    ids=["args 3000 deep", "args 5000 deep", "line 100000 deep"],
)
def test_deep_nesting_is_a_parse_error_and_the_server_reads_on(stdio: StdioProcess, line: bytes) -> None:
    one_refusal(refusals_then_alive(stdio, line), -32700)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", '"\\ud800"'])
def test_values_that_are_not_strict_json_are_a_parse_error(stdio: StdioProcess, literal: str) -> None:
    rid = 7 if "\\ud" in literal else None  # a lone surrogate parses: the call's id is read
    one_refusal(refusals_then_alive(stdio, call(f'{{"path": {literal}}}')), -32700, rid)
    ping = b'{"jsonrpc": "2.0", "id": %s, "method": "ping"}' % literal.encode()
    one_refusal(refusals_then_alive(stdio, ping), -32700)


@pytest.mark.parametrize(
    "line",
    [b"{not json", b'{"jsonrpc": "2.0", "id": 1', b"\xff\xfe", b'"ping"'],
    ids=["malformed", "cut", "not UTF-8", "a string"],
)
def test_a_line_that_is_no_message_is_answered(stdio: StdioProcess, line: bytes) -> None:
    answers = refusals_then_alive(stdio, line)
    assert len(answers) == 1 and answers[0]["id"] is None and answers[0]["error"]["code"] in (-32700, -32600)


@pytest.mark.parametrize(
    "message",
    [
        [{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "read_note"},
    ],
    ids=["batch", "jsonrpc 1.0", "boolean id", "params a string"],
)
def test_what_is_not_one_jsonrpc_message_is_an_invalid_request(stdio: StdioProcess, message: Any) -> None:
    rid = 1 if isinstance(message, dict) and isinstance(message.get("params"), str) else None
    one_refusal(refusals_then_alive(stdio, json.dumps(message).encode()), -32600, rid)


def test_a_line_over_the_limit_is_refused_without_being_held(stdio: StdioProcess) -> None:
    one_refusal(refusals_then_alive(stdio, call('{"path": "%s"}' % ("x" * MAX_LINE))), -32600)


def test_a_plain_call_is_still_answered(stdio: StdioProcess) -> None:
    stdio.send(call('{"path": "Welcome"}', rid="plain"))
    answer = stdio.until("plain")
    assert answer["result"]["structuredContent"]["title"] == "Welcome"


@st.composite
def lines(draw: st.DrawFn) -> tuple[bytes, bool]:
    """A line and whether it is certainly refused (answered before the next line, with id null,
    or with the call's id 7 when the line parsed: a lone surrogate, nesting under the parser's
    own recursion bound)."""
    kind = draw(st.sampled_from(["message"] * 4 + ["batch", "deep", "literal", "garbage", "cut"]))
    if kind == "batch":
        return json.dumps(draw(st.lists(messages_(), max_size=3))).encode(), True
    if kind == "deep":
        depth = draw(st.integers(201, 4000))
        return call('{"path": ' + "[" * depth + "]" * depth + "}"), True
    if kind == "literal":
        literal = draw(st.sampled_from(ODD_LITERALS))
        return call(f'{{"path": {literal}}}'), literal in ("NaN", "-Infinity", "Infinity", "1e400") or "\\ud" in literal
    if kind == "garbage":
        raw = draw(st.binary(max_size=64)).replace(b"\n", b"")
        return raw, bool(raw.strip())
    text = json.dumps(draw(messages_())).encode()
    if kind == "cut":
        return text[: draw(st.integers(1, max(1, len(text) - 1)))], True
    return text, False


def test_fuzzed_lines_are_all_answered_and_the_server_reads_on(stdio: StdioProcess) -> None:
    kinds: dict[str, int] = {}

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=lines())
    def send(case: tuple[bytes, bool]) -> None:
        line, refused = case
        answers = refusals_then_alive(stdio, line)  # every message out must be JSON-RPC
        told = [a for a in answers if a.get("id") is None or (refused and a.get("id") == 7 and "error" in a)]
        if refused:
            assert len(told) == 1 and told[0]["error"]["code"] in (-32700, -32600), (line[:200], answers)
        for answer in told:
            kinds[str(answer["error"]["code"])] = kinds.get(str(answer["error"]["code"]), 0) + 1

    send()
    assert stdio.proc.poll() is None
    stdio.send(call('{"path": "Welcome"}', rid="after"))
    assert stdio.until("after")["result"]["structuredContent"]["title"] == "Welcome"
    assert {"-32700", "-32600"} <= kinds.keys(), kinds
