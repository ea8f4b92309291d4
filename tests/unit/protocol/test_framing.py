"""The one framing step every front runs (`service.protocol.framing`): what it lets through and
what it refuses, with which JSON-RPC code and HTTP status."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from service.protocol.framing import MAX_DEPTH, PARSE_ERROR, Refused, envelope_error, read_message

OK: list[Any] = [
    {"jsonrpc": "2.0", "id": 1, "method": "ping"},
    {"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "read_note", "arguments": {}}},
    {"jsonrpc": "2.0", "id": -(2**70), "method": "ping", "params": None},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 3, "result": {}},
    {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": "x"}},
    {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "\U0001f600", "y": 1e308, "z": -0.0}},
]


@pytest.mark.parametrize("message", OK, ids=repr)
def test_one_valid_message_is_let_through_as_parsed(message: Any) -> None:
    assert read_message(json.dumps(message).encode()) == message
    assert read_message(json.dumps(message, ensure_ascii=False)) == message


def _nested(depth: int) -> str:
    return '{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": ' + "[" * depth + "]" * depth + "}}"


def test_nesting_is_refused_past_the_limit_only() -> None:
    assert not isinstance(read_message(_nested(MAX_DEPTH - 2)), Refused)  # object, params, then arrays
    for depth in (MAX_DEPTH - 1, 5000, 100_000):
        refused = read_message(_nested(depth), max_bytes=1 << 20)
        assert isinstance(refused, Refused) and refused.code == PARSE_ERROR and refused.status == 400
    many_siblings = {"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"n": [[{"a": [1]}] for _ in range(500)]}}
    assert read_message(json.dumps(many_siblings)) == many_siblings


def test_deep_nesting_is_refused_however_deep_the_callers_stack() -> None:
    def at_depth(n: int) -> Any:
        return read_message(_nested(10_000), max_bytes=1 << 20) if n == 0 else at_depth(n - 1)

    refused = at_depth(sys.getrecursionlimit() - 100)
    assert isinstance(refused, Refused) and refused.code == PARSE_ERROR


@pytest.mark.parametrize(
    "text",
    [
        "NaN",
        "Infinity",
        "-Infinity",
        "1e400",
        "-1e999",
        '"\\ud800"',
        '"a\\udc00"',
        '"\\ude00\\ud83d"',
        "1" * 5000,
        "{",
        "",
        "[1,]",
        "'x'",
    ],
)
def test_what_is_not_strict_json_is_a_parse_error(text: str) -> None:
    refused = read_message(f'{{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {{"x": {text}}}}}')
    assert isinstance(refused, Refused) and refused.code == PARSE_ERROR, refused
    # a lone surrogate parses, so the request's id is read and echoed; the rest does not parse
    rid = 1 if "\\ud" in text else None
    assert refused.error()["id"] == rid and refused.error()["error"]["message"].startswith("Parse error")


def test_a_number_past_pythons_digit_limit_is_told_without_the_servers_advice() -> None:
    """Python's refusal ends "use sys.set_int_max_str_digits() to increase the limit": advice for
    whoever runs the server, which the client was given (s89)."""
    refused = read_message('{"jsonrpc": "2.0", "id": %s, "method": "ping"}' % ("1" * 5000))
    assert isinstance(refused, Refused) and refused.code == PARSE_ERROR
    message = refused.error()["error"]["message"]
    assert "more than 4300 digits" in message and "sys." not in message, message


@pytest.mark.parametrize("data", [b"\xff\xfe{}", b"\xef\xbb\xbf{}", b"\xed\xa0\x80", b"", b"   ", b"{} {}"])
def test_bytes_that_are_not_one_utf8_json_value_are_a_parse_error(data: bytes) -> None:
    refused = read_message(data)
    assert isinstance(refused, Refused) and refused.code == PARSE_ERROR


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ([{"jsonrpc": "2.0", "id": 1, "method": "ping"}], "batches are not supported"),
        ([], "batches are not supported"),
        ("ping", "a message is a JSON object"),
        ({"id": 1, "method": "ping"}, '"jsonrpc": "2.0"'),
        ({"jsonrpc": 2.0, "id": 1, "method": "ping"}, '"jsonrpc": "2.0"'),
        ({"jsonrpc": "2.0", "id": 1, "method": None}, "method must be a string"),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, "not boolean"),
        ({"jsonrpc": "2.0", "id": 1.0, "method": "ping"}, "not number"),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, "not null"),
        ({"jsonrpc": "2.0", "id": [1], "method": "ping"}, "not array"),
        ({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}, "params must be an object"),
        ({"jsonrpc": "2.0", "id": 1}, "a method"),
        ({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}}, "a method"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": "1", "message": "x"}}, "integer code"),
        ({"jsonrpc": "2.0", "id": {}, "result": {}}, "not object"),
    ],
    ids=repr,
)
def test_what_is_not_one_jsonrpc_message_is_an_invalid_request(message: Any, reason: str) -> None:
    assert reason in (envelope_error(message) or "")
    refused = read_message(json.dumps(message))
    assert isinstance(refused, Refused) and refused.code == -32600 and refused.status == 400


def test_a_message_over_the_limit_is_413() -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "y" * 100}})
    refused = read_message(body, max_bytes=50)
    assert isinstance(refused, Refused) and (refused.code, refused.status) == (-32600, 413)
    assert json.loads(refused.body())["error"]["message"].startswith("Invalid Request")


def test_a_message_let_through_never_reads_the_id_to_echo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The id a refusal echoes is read in the refusal only, off the hot path (s85 P5)."""
    import service.protocol.framing as framing

    def unread(payload: Any) -> None:
        raise AssertionError("the id to echo was read for a message let through")

    monkeypatch.setattr(framing, "_request_id", unread)
    for message in OK:
        assert read_message(json.dumps(message).encode()) == message
    monkeypatch.undo()
    refused = read_message(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping", "params": [1]}))
    assert isinstance(refused, Refused) and refused.id == 7


def test_a_refusal_may_carry_data_and_mcps_unsupported_version_code() -> None:
    """`Refused` carries an error's `data` and labels -32022 (the HTTP front's version refusal)."""
    from mcp_types import UNSUPPORTED_PROTOCOL_VERSION

    from service.protocol.framing import UNSUPPORTED_VERSION

    assert UNSUPPORTED_VERSION == UNSUPPORTED_PROTOCOL_VERSION
    refused = Refused(UNSUPPORTED_VERSION, "the header is 'x'", 400, 5, {"requested": "x"})
    error = {"code": -32022, "message": "Unsupported protocol version: the header is 'x'", "data": {"requested": "x"}}
    assert refused.body() == json.dumps({"jsonrpc": "2.0", "id": 5, "error": error}).encode()
    assert "data" not in Refused(-32600, "no").error()["error"]  # no data, no key: the bytes stay as they were
