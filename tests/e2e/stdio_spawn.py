"""A `vaultgate stdio` server spawned on real pipes, for the e2e cases that drive its stdin and
stdout by hand (a client that reads slowly, not at all, or goes away).

`spawn(root, tmp, fast)` starts it with stdin and stdout piped and stderr written to
`tmp / "stderr.txt"` (a file: an unread stderr pipe would fill too; `stderr_tail` reads it back),
embeddings off, no throttle, the fast path on or off. `_line(**msg)` is one JSON-RPC line, `_unread`
the bytes waiting in a pipe; `WAIT_S` bounds every wait on a condition (a loaded CI machine).
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import termios
from pathlib import Path

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
READ = {"method": "tools/call", "params": {"name": "read_note", "arguments": {"path": "Home"}}}
FULL = 48_000  # bytes waiting in the stdout pipe (64 KB of pages on Linux, some part-filled): it is full
WAIT_S = 60.0  # bound on waiting for a condition (a loaded CI machine); never a sleep for timing


def _line(**msg: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n"


def _unread(out: int) -> int:
    size = bytearray(4)
    fcntl.ioctl(out, termios.FIONREAD, size)
    return int.from_bytes(size, sys.byteorder)


def spawn(root: Path, tmp: Path, fast: bool) -> subprocess.Popen[bytes]:
    """`vaultgate stdio root` on pipes (stdin, stdout), its stderr in `tmp / "stderr.txt"`."""
    env = {
        **os.environ,
        "VAULTGATE_EMBEDDINGS__PROVIDER": "none",
        "VAULTGATE_THROTTLE__ENABLED": "false",
        "VAULTGATE_PROTOCOL__FAST_CALLS": "true" if fast else "false",
    }
    with (tmp / "stderr.txt").open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service", "stdio", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            env=env,
        )
    assert proc.stdin is not None and proc.stdout is not None
    return proc


def stderr_tail(tmp: Path, size: int = 1500) -> str:
    return (tmp / "stderr.txt").read_text(encoding="utf-8", errors="replace")[-size:]
