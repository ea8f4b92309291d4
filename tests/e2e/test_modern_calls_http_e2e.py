"""The Streamable HTTP fast path of 2026-07-28 clients (service/http/modern_calls.py) against the
SDK's modern entry, on the wire: the same POSTs (the envelope in `_meta`, the routing headers)
to a real server with `[protocol] fast_calls` on and off get the same status, content type and
body, byte for byte; with it on the plain calls, writes included, really were answered past the
SDK, and nothing else was: a bad envelope, headers that disagree with the body, a log level in
`_meta`, a client that declared elicitation asking for a write, a token whose scope does not
cover the tool. The SDK's own Client (mode auto) gets its answers through it too. Each side
serves its own copy of the vault (the writes change it)."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.inbound import encode_header_value

from tests.conftest import e2e
from tests.e2e.test_fast_calls_e2e import ENVELOPE, FAST_IDS, SCRIPT, enveloped
from tests.keys import SECRET, claims, hs

LOGGER = "service.protocol.fast_path"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
VERSION = "2026-07-28"


def _comparable(body: bytes) -> bytes:
    """A duration, a file's mtime, an expiry and an input request's state (signed, per server) vary."""
    body = re.sub(rb'("requestState":)"[^"]*"', rb'\g<1>""', body)
    return re.sub(rb'(\\?"(?:duration_ms|mtime|expires_at)\\?": ?)[0-9.e+-]+', rb"\g<1>0", body)


def _headers(message: dict[str, Any]) -> dict[str, str]:
    """The headers a 2026-07-28 client sends with `message`."""
    headers = {**ACCEPT, "mcp-protocol-version": VERSION}
    if isinstance(message.get("method"), str):
        headers["mcp-method"] = message["method"]
    name = message.get("params", {}).get("name") if isinstance(message.get("params"), dict) else None
    if isinstance(name, str):
        headers["mcp-name"] = encode_header_value(name)
    return headers


def _log_level(message: dict[str, Any]) -> dict[str, Any]:
    meta = {**message["params"]["_meta"], "io.modelcontextprotocol/logLevel": "debug"}
    return {**message, "params": {**message["params"], "_meta": meta}}


READ = enveloped({"jsonrpc": "2.0", "id": "r", "method": "tools/call", "params": {
    "name": "read_note", "arguments": {"path": "Welcome"}}})  # fmt: skip
WRITE = {"jsonrpc": "2.0", "id": "w", "method": "tools/call", "params": {
    "name": "append_note", "arguments": {"path": "Welcome", "content": "- more\n"}}}  # fmt: skip
OVERWRITE = {"jsonrpc": "2.0", "id": "o", "method": "tools/call", "params": {
    "name": "write_note", "arguments": {"path": "Welcome", "content": "gone\n", "mode": "overwrite"}}}  # fmt: skip
NO_CAPS = {k: v for k, v in ENVELOPE.items() if not k.endswith("clientCapabilities")}
# (message, headers): each refused or served by the SDK on both sides, never here
ODD: list[tuple[dict[str, Any], dict[str, str]]] = [
    (READ, {**_headers(READ), "mcp-name": "list_notes"}),  # Mcp-Name disagrees with the body
    (READ, {**_headers(READ), "mcp-method": "tools/list"}),  # Mcp-Method disagrees
    (READ, {k: v for k, v in _headers(READ).items() if k != "mcp-method"}),  # no Mcp-Method
    (READ, {**_headers(READ), "mcp-protocol-version": "2099-01-01"}),  # an unknown version
    ({**READ, "params": {**READ["params"], "_meta": NO_CAPS}}, _headers(READ)),  # no capabilities in the envelope
    (
        {**READ, "params": {**READ["params"], "_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "x"}}},
        _headers(READ),
    ),  # the envelope's version disagrees with the header  # fmt: skip
    (_log_level(READ), _headers(READ)),  # a log level: the SDK's, with its log notifications
    ({**READ, "params": {**READ["params"], "_meta": {**READ["params"]["_meta"], "progressToken": 3}}}, _headers(READ)),
    ({**READ, "extra": 1}, _headers(READ)),  # a member besides the JSON-RPC envelope
    # a client that can be asked: a write that may ask stays the SDK's
    (enveloped(OVERWRITE, {"elicitation": {}}), _headers(OVERWRITE)),
    (READ, {**_headers(READ), "mcp-param-path": "Welcome"}),  # a header no parameter declares: plain, served here
]


async def _post_all(http: httpx2.AsyncClient, url: str, posts: list[tuple[dict[str, Any], dict[str, str]]]) -> Any:
    answers = []
    for message, headers in posts:
        answer = await http.post(url, content=json.dumps(message), headers=headers)
        answers.append((answer.status_code, answer.headers.get("content-type"), _comparable(answer.content)))
    return answers


async def _run(root: Path, posts: list[tuple[dict[str, Any], dict[str, str]]], *, fast: bool, **settings: Any) -> Any:
    async with e2e(root, protocol={"fast_calls": fast}, **settings) as (url, harness), create_mcp_http_client() as http:
        await harness.indexed()
        return await _post_all(http, url, posts)


def _fast_ids(caplog: pytest.LogCaptureFixture) -> list[Any]:
    ids = [
        json.loads(m.group(1))
        for r in caplog.records
        if (m := re.match(r"tools/call (.*) answered past", r.getMessage()))
    ]
    caplog.clear()
    return ids


@pytest.mark.parametrize(
    "http", [{}, {"json_response": True}, {"stateless": True}], ids=["sse-mode", "json-mode", "stateless"]
)
async def test_plain_2026_calls_over_http_answer_byte_for_byte_what_the_sdk_answers(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture, http: dict[str, Any]
) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    posts = [(enveloped(m), _headers(m)) for m in SCRIPT]
    slow = await _run(make_vault(name="slow/vault"), posts, fast=False, http=http)
    assert _fast_ids(caplog) == []
    fast = await _run(make_vault(name="fast/vault"), posts, fast=True, http=http)
    for message, want, got in zip(SCRIPT, slow, fast, strict=True):
        assert got == want, message
    # a `logging/setLevel` sets nothing on a sessionless POST: the call after it (18) is plain too
    served = FAST_IDS | {18}
    assert _fast_ids(caplog) == [m["id"] for m in SCRIPT if m["id"] in served and not isinstance(m["id"], bool)]
    status, kind, body = fast[0]
    assert (status, kind) == (200, "application/json")
    first = json.loads(body)["result"]
    assert first["resultType"] == "complete" and first["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]
    assert b'"s-\\u00fc \\u2713"' in fast[1][2]  # the SDK's writer escapes non-ASCII; so does this path
    by_id = {m["id"]: json.loads(answer[2]) for m, answer in zip(SCRIPT, fast, strict=True)}
    assert by_id[20]["result"]["structuredContent"]["created"] is True
    assert by_id[24]["result"]["structuredContent"]["items"][0]["path"] == "Inbox/New.md"


async def test_bad_envelopes_headers_logs_and_askable_writes_are_the_sdks(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    slow = await _run(make_vault(name="slow/vault"), ODD, fast=False)
    fast = await _run(make_vault(name="fast/vault"), ODD, fast=True)
    for (message, headers), want, got in zip(ODD, slow, fast, strict=True):
        assert got == want, (message, headers)
    assert _fast_ids(caplog) == ["r"]  # only the last
    assert [status for status, _, _ in fast[:6]] == [400] * 6
    assert b"notifications/message" in fast[6][2]  # the SDK sent the log lines the client asked for


async def test_a_duplicated_routing_header_is_the_sdks_refusal(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    headers = [*_headers(READ).items(), ("mcp-method", "tools/call")]
    answers = []
    for fast, name in ((False, "slow/vault"), (True, "fast/vault")):
        async with e2e(make_vault(name=name), protocol={"fast_calls": fast}) as (url, harness):
            await harness.indexed()
            async with create_mcp_http_client() as http:
                answer = await http.post(url, content=json.dumps(READ), headers=headers)
                answers.append((answer.status_code, answer.content))
    assert answers[0] == answers[1] and answers[1][0] == 400 and b"more than once" in answers[1][1]
    assert _fast_ids(caplog) == []


async def test_a_token_whose_scope_does_not_cover_the_tool_is_refused_as_the_sdk_refuses(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    auth = {"mode": "jwt", "jwt_secret": SECRET, "audience": "vaultgate"}
    token = hs(claims(aud="vaultgate", scope="read:vault"))
    posts = [(enveloped(WRITE), _headers(WRITE)), (READ, _headers(READ))]
    answers = []
    for fast, name in ((False, "slow/vault"), (True, "fast/vault")):
        async with (
            e2e(make_vault(name=name), protocol={"fast_calls": fast}, auth=auth) as (url, harness),
            create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
        ):
            await harness.indexed()
            answers.append(await _post_all(http, url, posts))
    assert answers[0] == answers[1]
    refused = json.loads(answers[1][0][2])["result"]
    assert refused["isError"] is True and "write:vault" in json.dumps(refused)
    assert json.loads(answers[1][1][2])["result"]["isError"] is False
    assert _fast_ids(caplog) == ["w", "r"]  # both through the chain, which refused the write


async def test_the_sdk_client_in_auto_mode_is_answered_here(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    got = []
    for fast, name in ((False, "slow/vault"), (True, "fast/vault")):
        async with e2e(make_vault(name=name), protocol={"fast_calls": fast}) as (url, harness):
            await harness.indexed()
            async with (
                create_mcp_http_client() as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                read = await client.call_tool("read_note", {"path": "Welcome"})
                missing = await client.call_tool("read_note", {"path": "Nope"})
                made = await client.call_tool("create_note", {"path": "Inbox/Fresh", "content": "# Fresh\n"})
                answers = [read.structured_content, missing.structured_content, made.structured_content]
                got.append(json.loads(_comparable(json.dumps(answers, separators=(",", ":")).encode())))
        if not fast:
            assert _fast_ids(caplog) == []
    assert got[0] == got[1]
    assert got[1][0]["title"] == "Welcome" and got[1][2]["created"] is True
    assert len(_fast_ids(caplog)) == 3


def _listing(rid: Any, meta: dict[str, Any] | None = None, **params: Any) -> tuple[dict[str, Any], dict[str, str]]:
    message = {"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": {**params, "_meta": meta or ENVELOPE}}
    return message, _headers(message)


@pytest.mark.parametrize(
    "http", [{}, {"json_response": True}, {"stateless": True}], ids=["sse-mode", "json-mode", "stateless"]
)
async def test_a_first_page_tools_list_is_the_sdks_answer_kept(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture, http: dict[str, Any]
) -> None:
    """A 2026-07-28 `tools/list` is the same for every caller, and the SDK builds it at every
    request (its client lists the tools again before each call of a tool the list does not show):
    the first page's answer is kept as the SDK wrote it and given again, byte for byte, with the
    request's id; a cursor or a log level in `_meta` stays the SDK's."""
    caplog.set_level(logging.DEBUG, logger="service.http.modern_calls")
    posts = [
        _listing(1),
        _listing("again"),
        _listing("s-\u00fc \u2713"),  # the SDK's writer escapes non-ASCII: so does this id
        _listing(4, cursor="20"),
        _listing(5, meta={**ENVELOPE, "io.modelcontextprotocol/logLevel": "debug"}),
        (READ, _headers(READ)),
        _listing(7),
    ]
    slow = await _run(make_vault(name="slow/vault"), posts, fast=False, http=http)
    assert not [r for r in caplog.records if "tools/list" in r.getMessage()]
    fast = await _run(make_vault(name="fast/vault"), posts, fast=True, http=http)
    for (message, _), want, got in zip(posts, slow, fast, strict=True):
        assert got == want, message
    served = [m.group(1) for r in caplog.records if (m := re.match(r"tools/list (.*) answered past", r.getMessage()))]
    assert served == ['"again"', '"s-\\u00fc \\u2713"', "7"]
    first = json.loads(fast[0][2])["result"]
    assert first["resultType"] == "complete" and {"read_note", "search_text"} <= {t["name"] for t in first["tools"]}
    assert json.loads(fast[1][2])["id"] == "again" and json.loads(fast[3][2])["result"]["tools"] != first["tools"]


CAPS = "io.modelcontextprotocol/clientCapabilities"
INFO = "io.modelcontextprotocol/clientInfo"
# envelopes whose keys are right and whose values the SDK's surface refuses (`-32602`, HTTP 400)
BAD_ENVELOPES: list[dict[str, Any]] = [
    {**ENVELOPE, CAPS: None},
    {**ENVELOPE, CAPS: []},
    {**ENVELOPE, CAPS: {"elicitation": 5}},
    {**ENVELOPE, INFO: 5},
    {**ENVELOPE, INFO: {"name": "raw"}},  # no version
]


async def test_an_envelope_whose_values_the_sdk_refuses_is_refused_as_the_sdk_refuses(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    """The fast path checked the envelope's keys, not its values: a `tools/call` whose client
    capabilities were null or a list, or whose client info had no version, was run and answered
    200, and a `tools/list` with one was given the kept list, where the SDK answers 400 `-32602`."""
    caplog.set_level(logging.DEBUG)
    calls = [
        ({**READ, "id": n, "params": {**READ["params"], "_meta": meta}}, _headers(READ))
        for n, meta in enumerate(BAD_ENVELOPES)
    ]
    lists = [_listing(f"l{n}", meta=meta) for n, meta in enumerate(BAD_ENVELOPES)]
    posts = [_listing("first"), *calls, *lists, (READ, _headers(READ))]
    slow = await _run(make_vault(name="slow/vault"), posts, fast=False)
    caplog.clear()
    fast = await _run(make_vault(name="fast/vault"), posts, fast=True)
    for (message, _), want, got in zip(posts, slow, fast, strict=True):
        assert got == want, message
    assert [status for status, _, _ in fast[1:-1]] == [400] * 2 * len(BAD_ENVELOPES)
    assert all(b'"code":-32602' in body for _, _, body in fast[1:-1])
    assert _fast_ids(caplog) == ["r"]  # only the last call
    assert not [r for r in caplog.records if re.match(r"tools/list .* answered past", r.getMessage())]
