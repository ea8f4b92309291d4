"""The endpoint a `vaultgate serve` subprocess prints ('MCP endpoint: URL' on stdout)."""

from __future__ import annotations

import subprocess
import time


def endpoint_of(proc: subprocess.Popen[str], wait_s: float = 60) -> str:
    """The URL `proc` printed within `wait_s` seconds, or '' when it printed none (it exited)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("MCP endpoint:"):
            return line.split(":", 1)[1].strip()
    return ""
