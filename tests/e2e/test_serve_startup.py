"""What `vaultgate serve` loads on the way to its first answered `search_text`, as an SDK client
asks it (`initialize`, the call, then `tools/list`): neither the SDK's client nor `MCPServer`
(service/__main__.py, `cmd_serve`: the SDK's packages registered bare), and not the tool domains
the call does not use (the first `tools/list` is the package's shipped answer:
service/http/fast_calls.py), as a warm restart of a large vault has them (docs/benchmarks.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2

from tests.e2e.served import endpoint_of

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
# A server uses neither the SDK's client (`mcp/__init__` re-exports it) nor `MCPServer`
# (`mcp/server/__init__` re-exports it).
NEVER_IMPORTED = ("mcp.client", "mcp.client.session", "mcp.server.mcpserver")
# Domain packages a `search_text` has no use for. Not `notes`: the query warm-up imports it at the
# first second without a call once the index is ready (`service.tools.query_warmup`, for the first
# write), which a slow session can leave between its calls.
NOT_CALLED = ("graph", "obsidian", "tasks", "dataview", "bundles", "admin", "memory", "sessions")


def _url(proc: subprocess.Popen[str]) -> str:
    url = endpoint_of(proc)
    assert url, "the server printed no URL"
    return url


def _search_session(url: str) -> None:
    """`initialize`, `search_text` and `tools/list`, as the SDK's client sends them."""
    with httpx2.Client(timeout=60) as http:
        opened = http.post(url, json=INIT, headers=HEADERS)
        assert opened.status_code == 200, opened.text
        headers = {**HEADERS, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        assert http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        call: dict[str, Any] = {"name": "search_text", "arguments": {"query": "welcome"}}
        found = http.post(
            url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, headers=headers
        )
        assert found.status_code == 200 and "result" in found.json(), found.text
        listed = http.post(url, json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, headers=headers)
        assert listed.status_code == 200 and listed.json()["result"]["tools"], listed.text


def _imports_of_a_serve(root: Path, log: Path) -> set[str]:
    """The modules `vaultgate serve ROOT` has imported (`-X importtime`) once it answered `_search_session`."""
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
    argv = [sys.executable, "-X", "importtime", "-m", "service", "serve", str(root), "--port", "0"]
    with log.open("wb") as err, subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=err, text=True) as proc:
        try:
            _search_session(_url(proc))
        finally:
            proc.kill()
            proc.wait(timeout=30)
            assert proc.stdout is not None
            proc.stdout.close()
    lines = log.read_text(errors="replace").splitlines()
    return {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}


def test_a_served_search_loads_neither_the_sdk_client_nor_the_domains_it_does_not_call(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault()
    for start in range(2):  # an empty cache folder, then a warm restart
        imported = _imports_of_a_serve(root, tmp_path / f"imports-{start}.txt")
        assert "service.tools.search.text" in imported  # the log is complete up to the call
        assert not set(NEVER_IMPORTED) & imported, start
        assert [d for d in NOT_CALLED if any(m.startswith(f"service.tools.{d}.") for m in imported)] == [], start
