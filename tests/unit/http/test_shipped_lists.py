"""When a Streamable HTTP session's `tools/list` is the package's shipped answer
(service/http/fast_calls.py, `SessionFastCalls.listed`): only after its `initialize` was answered,
for that answer's protocol version, with no cursor, under the settings the table was made for, and
while the SDK's server adds nothing per request (the wire: tests/e2e/test_tools_list_http_e2e.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import mcp_types as types

from service.http.fast_calls import SessionFastCalls, ShippedLists
from service.protocol.client_log import ClientLogs
from service.protocol.fast_path import FastPath
from service.protocol.shipped_tools_list import ShippedToolsList

TABLE = ShippedToolsList()
VERSION = next(v for v in ("2025-11-25", "2025-06-18") if TABLE.answer(v, None, TABLE.settings) is not None)


def _session(middleware: list[Any] | None = None, settings: str = TABLE.settings) -> SessionFastCalls:
    server = SimpleNamespace(middleware=middleware or [], cache_hints={}, server_info_stamp={"name": "vaultgate"})
    path = FastPath(cast(Any, SimpleNamespace(registry={})), cast(Any, server), ClientLogs())
    return SessionFastCalls(path, ShippedLists(settings, TABLE))


def _list(params: dict[str, Any] | None = None) -> types.JSONRPCRequest:
    return types.JSONRPCRequest(jsonrpc="2.0", id=1, method="tools/list", params=params)


def _initialized(fast: SessionFastCalls, version: str = VERSION) -> SessionFastCalls:
    fast.initialized(True, {"capabilities": {}}, {"protocolVersion": version})
    return fast


def test_the_shipped_list_answers_only_after_the_handshake_for_its_version() -> None:
    fast = _session()
    assert fast.listed(_list()) is None  # no initialize answered yet
    listed = _initialized(fast).listed(_list())
    assert listed is not None and listed["tools"]
    assert listed == _initialized(_session()).listed(_list({}))
    assert _initialized(_session(), "1999-01-01").listed(_list()) is None
    failed = _session()
    failed.initialized(False, {}, None)  # an initialize answered with an error
    assert failed.listed(_list()) is None


def test_a_cursor_other_settings_or_middleware_leave_the_list_to_the_sdk() -> None:
    assert _initialized(_session()).listed(_list({"cursor": "0"})) is None
    assert _initialized(_session(settings='{"tool_facade":{"mode":"flat"}}')).listed(_list()) is None
    assert _initialized(_session(middleware=[object()])).listed(_list()) is None
    call = types.JSONRPCRequest(jsonrpc="2.0", id=2, method="tools/call", params={"name": "read_note"})
    assert _initialized(_session()).listed(call) is None
