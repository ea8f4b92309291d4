"""A client that sends a W3C trace context in every request's `_meta` (the SDK client does once
tracing is on) does not fill the stdio front's store: the store keyed each answer by the whole
params, so each traced start's `initialize` and each `tools/list` made a new entry, copies of one
~110 KB list (up to 64, read at every start) never asked for again. The key now leaves out the
`_meta` keys beyond the 2026-07-28 envelope; the answers are the same."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _traced() -> dict[str, Any]:
    return {"traceparent": f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01"}


def _start(root: Path, cache: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none", "XDG_CACHE_HOME": str(cache)}
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    answers = []
    with subprocess.Popen(
        [sys.executable, "-m", "service", "stdio", str(root)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for msg in (
            {"id": 1, "method": "initialize", "params": {**init, "_meta": _traced()}},
            {"method": "notifications/initialized"},
            *({"id": 10 + n, "method": "tools/list", "params": {"_meta": _traced()}} for n in range(3)),
        ):
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n")
            proc.stdin.flush()
            if "id" in msg:
                answers.append(json.loads(proc.stdout.readline()))
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    assert [a["id"] for a in answers] == [1, 10, 11, 12]
    return answers


def test_a_traced_client_keeps_one_stored_list(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    root, cache = make_vault(), tmp_path / "cache"
    first, second = _start(root, cache), _start(root, cache)
    lists = [a["result"] for a in first[1:] + second[1:]]
    assert all(result == lists[0] for result in lists) and "read_note" in {t["name"] for t in lists[0]["tools"]}
    assert first[0]["result"] == second[0]["result"]
    (store,) = cache.rglob("stdio-answers-*.json")
    keys = json.loads(store.read_text(encoding="utf-8"))["answers"]
    # one of each (before: an `initialize` per start and a list per call, each under its own traceparent)
    assert sorted(key.split("|")[1] for key in keys) == ["initialize", "tools/list"], sorted(keys)
    assert "traceparent" not in store.read_text(encoding="utf-8")
