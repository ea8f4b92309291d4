"""A `vaultgate stdio` server spawned on real pipes, for the e2e cases that drive its stdin and
stdout by hand (a client that reads slowly, not at all, or goes away).

`spawn(root, tmp, fast)` starts it with stdin and stdout piped and stderr written to
`tmp / "stderr.txt"` (a file: an unread stderr pipe would fill too; `stderr_tail` reads it back),
embeddings off, no throttle, the fast path on or off (`bounds`: shorter waits of the server's own,
e.g. `stdio_out.GONE_S`). `_line(**msg)` is one JSON-RPC line, `_unread` the bytes waiting in a
pipe; `WAIT_S` bounds every wait on a condition (a loaded CI machine).
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import termios
from collections.abc import Mapping
from pathlib import Path

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
READ = {"method": "tools/call", "params": {"name": "read_note", "arguments": {"path": "Home"}}}
FULL = 48_000  # bytes waiting in the stdout pipe (64 KB of pages on Linux, some part-filled): it is full
WAIT_S = 60.0  # bound on waiting for a condition (a loaded CI machine); never a sleep for timing
# `python -m service` with some of the server's module-level bounds set first (argv[1]: a JSON
# object of dotted names and values; each bound is read where it is used, not copied at import)
BOUNDS_CODE = """
import importlib, json, runpy, sys
for name, value in json.loads(sys.argv.pop(1)).items():
    module, _, attr = name.rpartition(".")
    setattr(importlib.import_module(module), attr, value)
runpy.run_module("service", run_name="__main__", alter_sys=True)
"""


def _line(**msg: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n"


def _unread(out: int) -> int:
    size = bytearray(4)
    fcntl.ioctl(out, termios.FIONREAD, size)
    return int.from_bytes(size, sys.byteorder)


def spawn(root: Path, tmp: Path, fast: bool, *, bounds: Mapping[str, float] | None = None) -> subprocess.Popen[bytes]:
    """`vaultgate stdio root` on pipes (stdin, stdout), its stderr in `tmp / "stderr.txt"`.

    `bounds`: module-level bounds of the server set before the command runs, by dotted name
    (`{"service.protocol.stdio_out.GONE_S": 3.0}`), for the cases that would wait one out in full
    (its length is not what they check)."""
    command = ["-m", "service", "stdio", str(root)]
    if bounds:
        command = ["-c", BOUNDS_CODE, json.dumps(dict(bounds)), "stdio", str(root)]
    env = {
        **os.environ,
        "VAULTGATE_EMBEDDINGS__PROVIDER": "none",
        "VAULTGATE_THROTTLE__ENABLED": "false",
        "VAULTGATE_PROTOCOL__FAST_CALLS": "true" if fast else "false",
    }
    with (tmp / "stderr.txt").open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, *command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            env=env,
        )
    assert proc.stdin is not None and proc.stdout is not None
    return proc


def stderr_tail(tmp: Path, size: int = 1500) -> str:
    return (tmp / "stderr.txt").read_text(encoding="utf-8", errors="replace")[-size:]
