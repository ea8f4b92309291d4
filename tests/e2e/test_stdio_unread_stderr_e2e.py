"""A parent that never reads the stdio server's stderr (P1 s80 item 3): once the pipe was full,
the next log line blocked the event loop where it was logged, and the server froze (at the
default level after ~500 failing calls, each logged at INFO). Log lines now wait for a thread of
their own, bounded, the rest dropped and counted (`service.obs.logging.StderrHandler`, whose
drops tests/unit/obs/test_stderr_handler.py counts): every call is answered, and the server ends
when stdin closes, its log lines going out once stderr is read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
CALLS = 3000  # failing calls, one log line each: several times a pipe's 64 KB
WAIT_S = 120.0  # bound on waiting for the answers on a loaded machine; never a sleep for timing


def _line(**msg: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n"


def test_a_server_whose_stderr_is_not_read_answers_on(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "service", "stdio", str(make_vault({"Home.md": "# Home\n"}))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,  # never read until the end
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdout = proc.stdout
    stderr = proc.stderr
    answered: list[int] = []
    err: list[bytes] = []

    def read() -> None:
        for line in stdout:
            answered.append(json.loads(line)["id"])

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc.stdin.write(_line(id=0, method="initialize", params=INIT) + _line(method="notifications/initialized"))
        for rid in range(1, CALLS + 1):
            args = {"name": "read_note", "arguments": {"path": f"Missing {rid}"}}
            proc.stdin.write(_line(id=rid, method="tools/call", params=args))
        proc.stdin.flush()
        deadline = time.monotonic() + WAIT_S
        while len(answered) <= CALLS and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sorted(answered) == list(range(CALLS + 1)), f"{len(answered)} of {CALLS + 1} answered"
        drain = threading.Thread(target=lambda: err.append(stderr.read()), daemon=True)
        drain.start()  # stderr is read from now on: the lines held go out
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
        drain.join(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(60)
        stdout.close()
        stderr.close()
    assert b"INFO vaultgate.calls: call tool=read_note" in b"".join(err)
