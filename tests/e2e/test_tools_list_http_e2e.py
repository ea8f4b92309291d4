"""A session's first `tools/list` over Streamable HTTP, answered from the package's shipped answers
(service/http/fast_calls.py, `ShippedLists`): on the wire it is the SDK's own answer, byte for
byte, at every handshake version; it loads no domain package; and under settings the table was
not made for, or with a cursor, the SDK answers as before."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from service.tools.registry import PARTS
from tests.conftest import e2e

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def _init(version: str) -> dict[str, Any]:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}


async def _lists(
    url: str, versions: tuple[str, ...], message: dict[str, Any] = LIST
) -> dict[str, tuple[int, str | None, Any]]:
    """Each version's `tools/list` answer, on a session of its own: status, content type, body."""
    out: dict[str, tuple[int, str | None, Any]] = {}
    async with create_mcp_http_client() as http:
        for version in versions:
            opened = await http.post(url, json=_init(version), headers=HEADERS)
            assert opened.status_code == 200, opened.text
            negotiated = opened.json()["result"]["protocolVersion"]
            session = opened.headers["mcp-session-id"]
            headers = {**HEADERS, "mcp-session-id": session, "mcp-protocol-version": negotiated}
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert (await http.post(url, json=note, headers=headers)).status_code == 202
            answer = await http.post(url, json=message, headers=headers)
            out[version] = (answer.status_code, answer.headers.get("content-type"), _body(answer))
    return out


def _body(answer: httpx2.Response) -> Any:
    """The JSON-RPC message of a JSON answer, or of an SSE stream's last event (the SDK opens a
    stream when its list takes longer than the grace period, on a loaded machine)."""
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        events = [line[5:] for line in answer.text.splitlines() if line.startswith("data:")]
        return json.loads(events[-1])
    return answer.json()


def _handshake_versions() -> tuple[str, ...]:
    return tuple(v for v in HANDSHAKE_PROTOCOL_VERSIONS if v < "2026")


async def test_a_first_tools_list_is_the_sdk_answer_and_loads_no_domain(make_vault: Callable[..., Path]) -> None:
    versions = _handshake_versions()
    async with e2e(make_vault(name="sdk/vault"), protocol={"fast_calls": False}) as (url, _):
        sdk = await _lists(url, versions)
    async with e2e(make_vault(name="shipped/vault")) as (url, harness):
        shipped = await _lists(url, versions)
        loaded = harness.app.registry.loaded_parts()
    assert {v: (a[0], a[2]) for v, a in shipped.items()} == {v: (a[0], a[2]) for v, a in sdk.items()}
    assert all(answer[:2] == (200, "application/json") for answer in shipped.values())
    assert sdk[versions[-1]][2]["result"]["tools"]
    assert len(loaded) < len(PARTS)  # the SDK's list imports every part


async def test_a_listing_the_table_was_not_made_for_is_the_sdks(make_vault: Callable[..., Path]) -> None:
    version = _handshake_versions()[-1]
    hidden = {"hidden": ["read_note"]}
    async with e2e(make_vault(), tool_visibility=hidden) as (url, harness):
        answer = (await _lists(url, (version,)))[version]
        assert harness.app.registry.loaded_parts() == PARTS  # listed by the SDK
    names = {tool["name"] for tool in answer[2]["result"]["tools"]}
    assert answer[0] == 200 and names and "read_note" not in names
    async with e2e(make_vault(name="paged/vault")) as (url, harness):
        paged = {**LIST, "params": {"cursor": "0"}}
        answer = (await _lists(url, (version,), paged))[version]
        assert harness.app.registry.loaded_parts() == PARTS
    assert answer[0] == 200 and answer[2]["result"]["tools"]
