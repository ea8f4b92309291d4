"""A batch client that closes stdin after its requests and reads stdout slowly (R1 s80).

a29b3c73 (P1 s80) counts a client that closed stdin while its answers wait for stdout as gone
once no line goes out for `stdio_out.GONE_S`, and drops the lines it sent but that were not
handled yet. With 2 s, a consumer that paused a few seconds between reads (a pipeline stage
doing work per answer, a pager) lost answers it was owed and the server stopped early. Here the
client fills the stdout pipe, closes stdin, pauses 3 x 2 s, then reads to the end: every request
is answered and the server exits 0.

At the end of stdin with fewer answers waiting (the reader not paused), the answers still being
written got 2 s in all (`serve_stdio.STUCK_WRITE_S`), then the process exited: a client that
paused before reading a few long answers got the first ones and a line cut short (P1 s81). Now
they go out while the client reads them (`stdio_out.Outbox.stuck`)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.stdio_spawn import FULL, INIT, READ, WAIT_S, _line, _unread, spawn, stderr_tail

LAST = 500  # requests (ids 3..LAST): the pipe holds ~100 answers, HOLD_AT more wait to be written,
# the lines read after them are held (the reader paused) and the rest wait in the stdin pipe
PAUSE_S = 6.0  # the consumer's pause: longer than the 2 s grace a29b3c73 gave, well inside GONE_S


def _filled(root: Path, tmp: Path, fast: bool) -> tuple[subprocess.Popen[bytes], int]:
    """A server given LAST requests, its stdout never read, until the stdout pipe is full."""
    proc = spawn(root, tmp, fast)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_line(id=1, method="initialize", params=INIT) + _line(method="notifications/initialized"))
    proc.stdin.write(_line(id=2, method="prompts/list"))  # answered by the SDK's session: attached by then
    proc.stdin.flush()
    assert [json.loads(proc.stdout.readline())["id"] for _ in range(2)] == [1, 2]
    stdin = proc.stdin.fileno()
    os.set_blocking(stdin, False)  # the server stops reading once the answers wait for stdout
    deadline, sent = time.monotonic() + WAIT_S, 2
    while sent < LAST or _unread(proc.stdout.fileno()) < FULL:
        assert time.monotonic() < deadline, f"the stdout pipe never filled ({sent} sent)"
        if sent == LAST:
            time.sleep(0.01)  # every request is written: the answers are still on their way
            continue
        try:
            os.write(stdin, _line(id=sent + 1, **READ))  # one line at once (< PIPE_BUF): never half written
        except BlockingIOError:
            time.sleep(0.01)  # stdin full: the server is busy answering
            continue
        sent += 1
    return proc, sent


@pytest.mark.parametrize("fast", [True, False], ids=["fast-calls", "sdk"])
def test_a_client_that_closed_stdin_and_reads_slowly_gets_every_answer(
    make_vault: Callable[..., Path], tmp_path: Path, fast: bool
) -> None:
    proc, last = _filled(make_vault({"Home.md": "# Home\n"}), tmp_path, fast)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()
    time.sleep(PAUSE_S)  # the scenario itself (a consumer busy elsewhere), not a wait for ordering
    try:
        answers = [json.loads(line) for line in proc.stdout]
        code = proc.wait(timeout=WAIT_S)
    finally:
        proc.kill()
        proc.stdout.close()
    stderr = stderr_tail(tmp_path)
    assert sorted(a.get("id") for a in answers) == list(range(3, last + 1)), stderr  # calls run side by side
    assert all("result" in a for a in answers), stderr
    assert code == 0, stderr


LONG = 8  # answers of ~300 KB each: far more than the stdout pipe holds, each one written by a thread


def test_long_answers_owed_at_the_end_of_stdin_go_to_a_client_that_reads_late(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """Fast calls: the answers were all computed at once, so before the process exited 2 s after
    the end of stdin with most of them unwritten (the SDK's slower answers sometimes escaped)."""
    root = make_vault({"Big.md": "# Big\n\n" + ("word " * 19 + "\n") * 3000})
    proc = spawn(root, tmp_path, fast=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(_line(id=1, method="initialize", params=INIT) + _line(method="notifications/initialized"))
        proc.stdin.write(_line(id=2, method="prompts/list"))  # answered by the SDK's session: attached by then
        proc.stdin.flush()
        assert [json.loads(proc.stdout.readline())["id"] for _ in range(2)] == [1, 2]
        big = {"method": "tools/call", "params": {"name": "read_note", "arguments": {"path": "Big"}}}
        proc.stdin.write(b"".join(_line(id=i, **big) for i in range(3, 3 + LONG)))
        proc.stdin.close()
        time.sleep(PAUSE_S)  # the scenario itself (a consumer busy elsewhere), not a wait for ordering
        lines = list(proc.stdout)
        code = proc.wait(timeout=WAIT_S)
    finally:
        proc.kill()
        proc.stdout.close()
    answers = [json.loads(line) for line in lines]  # a line cut short is not JSON
    assert sorted(a.get("id") for a in answers) == list(range(3, 3 + LONG)), stderr_tail(tmp_path)
    assert all(len(line) > 300_000 and "result" in a for line, a in zip(lines, answers, strict=True))
    assert code == 0, stderr_tail(tmp_path)
