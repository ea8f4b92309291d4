"""A `tools/list` over stdio after the SDK session attached (service/protocol/fast_calls.py,
`FastCalls.replays`; service/protocol/stdio_front.py, `kept_list`): once the SDK (or the package)
answered a list for the same params, the front answers it again from its store, byte for byte what
the SDK answers, in both eras; a client that set a log level, a `_meta` beyond the 2026-07-28
envelope or other params are the SDK's. The SDK's own client lists the tools before every call of a
tool the lean list does not show: those lists are answered from the store too."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.e2e.test_fast_calls_e2e import _call, _comparable, _run

KEPT_LOG = re.compile(r"tools/list (.*) answered from the kept list")


def _list(rid: Any, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": params}


def _script(modern: bool) -> tuple[list[dict[str, Any]], list[Any]]:
    """The requests after the handshake, and the ids the front answers from its store (each form's
    second ask: the first is the SDK's, recorded)."""
    script = [
        _list("a1"),
        _call("c1", "note_info", {"path": "Welcome"}),  # a tool the lean list does not show
        _list("a2"),
        _list(7),
        {"jsonrpc": "2.0", "id": "b1", "method": "tools/list"},  # no params: another form (2026-07-28: the envelope)
        {"jsonrpc": "2.0", "id": "b2", "method": "tools/list"},
        _list("cur1", cursor="nope"),  # a cursor the SDK refuses: never stored
        _list("cur2", cursor="nope"),
        _list("meta1", _meta={"progressToken": "p"}),  # `_meta` beyond the envelope: the SDK's
        _list("meta2", _meta={"progressToken": "p"}),
        {"jsonrpc": "2.0", "id": "x1", "method": "tools/list", "params": {}, "extra": 1},  # not the bare envelope
        _list(2**70),  # an id out of the 64-bit range
    ]
    kept = ["a2", 7, "b1", "b2"] if modern else ["a2", 7, "b2"]
    if modern:  # a log level rides the request: the SDK's (its notifications)
        script += [_list("log1", _meta={"io.modelcontextprotocol/logLevel": "debug"}), _list("a3")]
        kept += ["a3"]
    else:  # after `logging/setLevel` every list is the SDK's
        script += [
            {"jsonrpc": "2.0", "id": "lvl", "method": "logging/setLevel", "params": {"level": "debug"}},
            _list("a3"),
        ]
    return script, kept


def _same(lines: list[bytes]) -> list[bytes]:
    """`_comparable`, and a note's ctime too (each side has its own copy of the vault)."""
    return [re.sub(rb'(\\?"ctime\\?": ?)[0-9.e+-]+', rb"\g<1>0", line) for line in _comparable(lines)]


@pytest.mark.parametrize("modern", [False, True], ids=["handshake", "2026-07-28"])
async def test_a_kept_tools_list_is_byte_for_byte_the_sdks_answer(
    make_vault: Callable[..., Path], tmp_path: Path, modern: bool
) -> None:
    script, kept = _script(modern)
    asked = {"modern": modern, "script": script, "same": _same}
    slow, slow_log = await _run(make_vault(name="slow/vault"), tmp_path / "slow", fast=False, **asked)
    fast, fast_log = await _run(make_vault(name="fast/vault"), tmp_path / "fast", fast=True, **asked)
    for message, want, got in zip(script, slow, fast, strict=True):
        assert got == want, message
    assert KEPT_LOG.findall(slow_log) == []
    assert [json.loads(rid) for rid in KEPT_LOG.findall(fast_log)] == kept
    by_id = {json.dumps(m["id"]): json.loads(answer[-1]) for m, answer in zip(script, fast, strict=True)}
    listed = [tool["name"] for tool in by_id['"a2"']["result"]["tools"]]
    assert "read_note" in listed and "note_info" not in listed  # the lean list
    assert by_id['"c1"']["result"]["structuredContent"]["path"] == "Welcome.md"
    assert "error" in by_id['"cur2"']  # the SDK's refusal, both times
    if modern:
        assert by_id['"a2"']["result"]["resultType"] == "complete"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_sdk_clients_lists_before_unlisted_calls_come_from_the_store(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str
) -> None:
    root = make_vault()
    log = tmp_path / "stderr.log"
    env = {
        **os.environ,
        "VAULTGATE_STORAGE__CACHE_DIR": str(tmp_path / "cache"),
        "VAULTGATE_STORAGE__DATA_DIR": str(tmp_path / "data"),
        "VAULTGATE_EMBEDDINGS__PROVIDER": "none",
        "VAULTGATE_LOG__LEVEL": "debug",
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)], env=env)
    with open(log, "w", encoding="utf-8") as errlog:  # noqa: ASYNC230 - a local file, opened once
        async with Client(stdio_client(params, errlog=errlog), mode=mode) as client:  # type: ignore[arg-type]
            infos = [await client.call_tool("note_info", {"path": "Welcome"}) for _ in range(4)]
            listed = await client.list_tools()
    assert all(not info.is_error for info in infos)
    assert {(info.structured_content or {}).get("path") for info in infos} == {"Welcome.md"}
    assert "note_info" not in [tool.name for tool in listed.tools]
    text = log.read_text(encoding="utf-8", errors="replace")
    # The client listed the tools before each `note_info`; from the second call on the list was kept.
    assert len(KEPT_LOG.findall(text)) >= 3, text[-3000:]
