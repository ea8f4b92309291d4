"""Requests piped to `vaultgate stdio` and followed at once by the end of stdin are all answered
(`printf '…' | vaultgate stdio`): the SDK's input was closed at the end of stdin, which ended its
session with its running requests unanswered, so the last answer was lost whenever the SDK served
it (fast calls off, or a request the fast path does not take: resources/read, prompts/get). Now
the SDK answers what it was asked before its input closes (`service.protocol.sdk_pumps`), with
fast calls on and off alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


@pytest.mark.parametrize("fast", [True, False])
def test_every_request_before_the_end_of_stdin_is_answered(make_vault: Callable[..., Path], fast: bool) -> None:
    root = make_vault({"Welcome.md": "# Welcome\n\nhello\n"})
    messages = [
        {"id": 1, "method": "initialize", "params": INIT},
        {"method": "notifications/initialized"},
        {"id": 2, "method": "tools/call", "params": {"name": "read_note", "arguments": {"path": "Welcome"}}},
        {"id": 3, "method": "resources/read", "params": {"uri": "vault://main/Welcome.md"}},
        {"id": 4, "method": "prompts/get", "params": {"name": "summarize_note", "arguments": {"path": "Welcome"}}},
        {"id": 5, "method": "tools/call", "params": {"name": "search_text", "arguments": {"query": "hello"}}},
    ]
    env = {
        **os.environ,
        "VAULTGATE_EMBEDDINGS__PROVIDER": "none",
        "VAULTGATE_PROTOCOL__FAST_CALLS": "true" if fast else "false",
    }
    data = b"".join(json.dumps({"jsonrpc": "2.0", **m}).encode() + b"\n" for m in messages)
    done = subprocess.run(
        [sys.executable, "-m", "service", "stdio", str(root)], input=data, env=env, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answers = {a["id"]: a for a in map(json.loads, done.stdout.splitlines())}
    assert sorted(answers) == [1, 2, 3, 4, 5], done.stdout[-2000:]
    assert all("result" in a for a in answers.values()), [a for a in answers.values() if "result" not in a]
    assert "hello" in answers[3]["result"]["contents"][0]["text"]
