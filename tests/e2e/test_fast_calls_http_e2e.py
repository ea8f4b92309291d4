"""The Streamable HTTP fast path (service/http/fast_calls.py) against the SDK's session, on the
wire: the same POSTs to a real server with `[protocol] fast_calls` on and off get the same
status, content type and body (a log notification's duration aside), and with it on the plain
calls, writes included, really were answered past the SDK. Each side serves its own copy of the
vault (the writes change it)."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import e2e
from tests.e2e.test_fast_calls_e2e import FAST_IDS, INIT, SCRIPT

LOGGER = "service.protocol.fast_path"
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _comparable(body: bytes) -> bytes:
    return re.sub(rb'(\\?"(?:duration_ms|mtime|expires_at)\\?": ?)[0-9.e+-]+', rb"\g<1>0", body)


async def _run(root: Path, *, fast: bool, extra_headers: dict[str, str] | None = None) -> list[tuple[Any, ...]]:
    async with e2e(root, protocol={"fast_calls": fast}) as (url, harness), create_mcp_http_client() as http:
        await harness.indexed()
        opened = await http.post(url, json=INIT, headers=HEADERS)
        assert opened.status_code == 200, opened.text
        headers = {**HEADERS, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        headers.update(extra_headers or {})
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        answers: list[tuple[Any, ...]] = [((await http.post(url, json=note, headers=headers)).status_code,)]
        for message in SCRIPT:
            answer = await http.post(url, content=json.dumps(message), headers=headers)
            answers.append((answer.status_code, answer.headers.get("content-type"), _comparable(answer.content)))
        unknown = {**headers, "mcp-session-id": "no-such-session"}
        answer = await http.post(url, content=json.dumps(SCRIPT[0]), headers=unknown)
        answers.append((answer.status_code, answer.content))
        missing = {k: v for k, v in headers.items() if k != "mcp-session-id"}
        answer = await http.post(url, content=json.dumps(SCRIPT[0]), headers=missing)
        answers.append((answer.status_code, answer.content))
        return answers


def _fast_ids(caplog: pytest.LogCaptureFixture) -> list[Any]:
    ids = [
        json.loads(m.group(1))
        for r in caplog.records
        if (m := re.match(r"tools/call (.*) answered past", r.getMessage()))
    ]
    caplog.clear()
    return ids


async def test_fast_calls_over_http_answer_what_the_sdk_session_answers(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    slow = await _run(make_vault(name="slow/vault"), fast=False)
    assert _fast_ids(caplog) == []
    fast = await _run(make_vault(name="fast/vault"), fast=True)
    for message, want, got in zip(["initialized", *SCRIPT, "unknown session", "no session"], slow, fast, strict=True):
        assert got == want, message
    assert _fast_ids(caplog) == [m["id"] for m in SCRIPT if m["id"] in FAST_IDS and not isinstance(m["id"], bool)]
    assert fast[0] == (202,) and fast[1][:2] == (200, "application/json")
    assert json.loads(fast[1][2])["result"]["structuredContent"]["title"] == "Welcome"
    assert fast[-2][0] == 404 and fast[-1][0] == 400


async def test_a_wrong_protocol_version_header_is_refused_before_the_fast_path(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    bad = {"mcp-protocol-version": "1999-01-01"}
    slow = await _run(make_vault(name="slow/vault"), fast=False, extra_headers=bad)
    fast = await _run(make_vault(name="fast/vault"), fast=True, extra_headers=bad)
    assert fast == slow and fast[1][0] == 400
    assert _fast_ids(caplog) == []


async def test_a_client_that_can_be_asked_gets_confirmable_writes_through_the_sdk(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    init = {**INIT, "params": {**INIT["params"], "capabilities": {"elicitation": {}}}}
    async with e2e(make_vault(), protocol={"fast_calls": True}) as (url, harness), create_mcp_http_client() as http:
        await harness.indexed()
        opened = await http.post(url, json=init, headers=HEADERS)
        headers = {**HEADERS, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        made = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "create_note", "arguments": {"path": "New", "content": "x\n"}}}, headers=headers)  # fmt: skip
        added = await http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "append_note", "arguments": {"path": "New", "content": "y\n"}}}, headers=headers)  # fmt: skip
    assert json.loads(made.content)["result"]["structuredContent"]["created"] is True
    assert json.loads(added.content)["result"]["isError"] is False
    assert _fast_ids(caplog) == [2]
