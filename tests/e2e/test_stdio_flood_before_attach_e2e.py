"""A stdio client that writes a flood of requests before the server has loaded (P1 s80 item 2).

The front kept every line read before the SDK session attached, without bound; it now stops
reading past `stdin_lines.MAX_PENDING` bytes (16 MiB) until the session takes them. This case
writes 40 MB of requests at once, from the spawn on, while it reads stdout: every request is
answered, in a process that ends when stdin closes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
PINGS = 2500  # of 16 KB each: 40 MB, past the front's bound before the attach


def _line(**msg: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n"


def test_a_flood_before_the_attach_is_answered_whole(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with (tmp_path / "stderr.txt").open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service", "stdio", str(make_vault({"Home.md": "# Home\n"}))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            env=env,
        )
    assert proc.stdin is not None and proc.stdout is not None
    stdin = proc.stdin

    def flood() -> None:
        stdin.write(_line(id=0, method="initialize", params=INIT) + _line(method="notifications/initialized"))
        pad = "x" * 16_000
        for rid in range(1, PINGS + 1):
            stdin.write(_line(id=rid, method="ping", params={"_meta": {"pad": pad}}))
        stdin.close()

    writer = threading.Thread(target=flood, daemon=True)
    writer.start()
    with proc.stdout:
        ids = [json.loads(line).get("id") for line in proc.stdout]  # to the end of stdout: the process ended
    writer.join(60)
    assert proc.wait(timeout=60) == 0, (tmp_path / "stderr.txt").read_text()[-1500:]
    assert sorted(ids) == list(range(PINGS + 1)), (len(ids), (tmp_path / "stderr.txt").read_text()[-1500:])
