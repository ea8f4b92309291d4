"""A stdio client that stops reading stdout (P4 s79 item 3): the server's answers fill the pipe.

The stdio front wrote every answer up to 32 KB on the event loop, so once the pipe was full the
loop stood in that write: SIGTERM (handled on the loop) did not stop the server, which ran until
SIGKILL. Lines now leave the loop only when they cannot block it, the others from a worker
thread (`service.protocol.stdio_out`). Each case waits until the pipe is full (the client's end
holds most of its 64 KB), then sends SIGTERM: exit 0."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.stdio_spawn import FULL, INIT, READ, WAIT_S, _line, _unread, spawn

# The server's own waits, shortened (that the server ends is under test, not when): how long a
# closed stdin and an unread stdout last before the client counts as gone (30 s by default), and
# how long a stop waits for answers that cannot be written (5 s by default).
GONE_S = 3.0
BOUNDS = {"service.protocol.stdio_out.GONE_S": GONE_S, "service.serve_stdio.STOP_REQUESTS_S": 1.0}


def _stuck_server(root: Path, tmp: Path, fast: bool) -> subprocess.Popen[bytes]:
    """A server past its start (one call answered), then given requests, never read, until the
    stdout pipe is full."""
    proc = spawn(root, tmp, fast, bounds=BOUNDS)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_line(id=1, method="initialize", params=INIT) + _line(method="notifications/initialized"))
    proc.stdin.write(_line(id=2, **READ))
    proc.stdin.flush()
    answered = [json.loads(proc.stdout.readline()) for _ in range(2)]
    assert [a["id"] for a in answered] == [1, 2], answered
    stdin = proc.stdin.fileno()
    os.set_blocking(stdin, False)  # the old server stopped reading stdin once its loop stood still
    deadline, rid = time.monotonic() + WAIT_S, 3
    while _unread(proc.stdout.fileno()) < FULL:
        assert time.monotonic() < deadline, "the stdout pipe never filled"
        try:
            os.write(stdin, _line(id=rid, **READ))
            rid += 1
        except BlockingIOError:
            time.sleep(0.01)  # stdin full: the server is busy answering
    return proc


def _ended(proc: subprocess.Popen[bytes], tmp: Path, within: float = WAIT_S) -> None:
    try:
        code = proc.wait(timeout=within)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
        pytest.fail(f"the server did not end; stderr: {(tmp / 'stderr.txt').read_text()[-1500:]}")
    finally:
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()
    assert code == 0, (tmp / "stderr.txt").read_text()[-1500:]


@pytest.mark.parametrize("fast", [True, False], ids=["fast-calls", "sdk"])
def test_sigterm_ends_a_server_whose_stdout_is_not_read(
    make_vault: Callable[..., Path], tmp_path: Path, fast: bool
) -> None:
    proc = _stuck_server(make_vault({"Home.md": "# Home\n"}), tmp_path, fast)
    proc.send_signal(signal.SIGTERM)
    _ended(proc, tmp_path)


@pytest.mark.parametrize("fast", [True, False], ids=["fast-calls", "sdk"])
def test_closing_stdin_ends_a_server_whose_stdout_is_not_read(
    make_vault: Callable[..., Path], tmp_path: Path, fast: bool
) -> None:
    """The stdin reader is paused by then (the answers wait for the pipe): the end of stdin was
    not seen, and the server ran on after its client had gone (P1 s80 item 1)."""
    proc = _stuck_server(make_vault({"Home.md": "# Home\n"}), tmp_path, fast)
    assert proc.stdin is not None
    proc.stdin.close()
    _ended(proc, tmp_path, GONE_S + WAIT_S)  # no line goes out for GONE_S first: the client is gone
