"""A client that goes away with answers still owed (it closes stdout and stdin at once): the
server stops quietly. Before, every answer still owed raised BrokenPipeError in a task nobody
awaited ("Task exception was never retrieved", ~800 traceback lines on stderr for 400 calls;
R1 s80); now the first broken write drops the rest and stops the server as on a signal."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.stdio_spawn import INIT, WAIT_S, _line, spawn

CALLS = 400
SEARCH = {"method": "tools/call", "params": {"name": "search_text", "arguments": {"query": "note", "limit": 10}}}


@pytest.mark.e2e
@pytest.mark.parametrize("fast", [True, False], ids=["fast-calls", "sdk"])
def test_a_client_gone_with_answers_owed_stops_the_server_without_tracebacks(
    make_vault: Callable[..., Path], tmp_path: Path, fast: bool
) -> None:
    root = make_vault({f"n{i}.md": f"# Note {i}\n\nA note about notes, number {i}.\n" for i in range(40)})
    proc = spawn(root, tmp_path, fast)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(_line(id=1, method="initialize", params=INIT))
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        proc.stdin.write(_line(method="notifications/initialized"))
        proc.stdin.write(b"".join(_line(id=i, **SEARCH) for i in range(2, CALLS + 2)))
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] in range(2, CALLS + 2)  # calls are being answered
        proc.stdout.close()
        proc.stdin.close()
        assert proc.wait(WAIT_S) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(WAIT_S)
        proc.stdout.close()
        proc.stdin.close()
    stderr = (tmp_path / "stderr.txt").read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in stderr and "never retrieved" not in stderr, stderr[-3000:]
