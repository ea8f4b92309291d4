"""SIGTERM stops `vaultgate serve` while a thread still prepares a note's rows (T1 s62 #13: a note
of 100,000 tags took minutes to parse, and closing the event loop joined that thread, so the
server outlived SIGTERM). The note's preparation here never ends (`tests/stuck_note.py`); the
process must exit, with status 0, within a bound (graceful shutdown, then `serve.STRAGGLERS_S`)."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable
from pathlib import Path

WITHIN = 60.0  # the bound of every wait


def _lines(proc: subprocess.Popen[str]) -> tuple[queue.Queue[str], threading.Thread]:
    """The process's stdout lines, read by a daemon thread (so every wait for one is bounded)."""
    out: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return out, reader


def _line_starting(lines: queue.Queue[str], prefix: str) -> str:
    while not (line := lines.get(timeout=WITHIN)).startswith(prefix):
        pass
    return line


def test_sigterm_stops_the_server_while_a_note_is_being_prepared(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n\nalpha\n"})
    env = {**os.environ, "XDG_CACHE_HOME": str(root.parent / "cache"), "XDG_DATA_HOME": str(root.parent / "data")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.stuck_note", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    reader = None
    try:
        lines, reader = _lines(proc)
        url = _line_starting(lines, "MCP endpoint:").split(":", 1)[1].strip()
        (root / "Stuck.md").write_text("# Stuck\n\n#a #b\n", encoding="utf-8")  # another program saves it
        assert _line_starting(lines, "preparing") == "preparing Stuck.md\n"
        base = url.split("/", 3)[:3]
        with urllib.request.urlopen("/".join(base) + "/healthz", timeout=WITHIN) as health:
            assert health.status == 200  # the server answers meanwhile
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=WITHIN) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if reader is not None:
            reader.join(WITHIN)  # at the end of the output
        assert proc.stdout is not None
        proc.stdout.close()
