"""A warm `vaultgate stdio` start answers its first plain `read_note` calls before the server is
built (service/protocol/first_reads.py): through the real process, the answers are the ones the
chain gave the start before, a hostile call still gets the chain's refusal, the reads are
answered before pydantic is imported, and each of them is still on the audit log."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.stdio_spawn import BOUNDS_CODE

# A start waits FIRST_ANSWERS_S (0.5 s) for its first answers before it loads the server anyway; on a
# loaded machine the reader could take longer and the server load first. What is under test is that
# the reads are answered before the load when the reader gets there, so the wait here is long.
WAIT = json.dumps({"service.protocol.stdio_front.FIRST_ANSWERS_S": 60.0})
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


def _line(msg_id: int | None, method: str, params: dict[str, Any] | None = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if msg_id is not None:
        msg["id"] = msg_id
    if params is not None:
        msg["params"] = params
    return json.dumps(msg).encode() + b"\n"


def _read(msg_id: int, path: str) -> bytes:
    return _line(msg_id, "tools/call", {"name": "read_note", "arguments": {"path": path}})


def _session(root: Path, lines: list[bytes], wanted: set[int], log: Path) -> dict[int, Any]:
    """Send `lines` at once to `vaultgate stdio ROOT` (`-X importtime` into `log`), collect the
    answers with ids in `wanted`, then close stdin; the server must exit 0."""
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
    answers: dict[int, Any] = {}
    with (
        log.open("wb") as err,
        subprocess.Popen(
            [sys.executable, "-X", "importtime", "-c", BOUNDS_CODE, WAIT, "stdio", str(root)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
        ) as proc,
    ):
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(b"".join(lines))
        proc.stdin.flush()
        while not wanted <= answers.keys():
            line = proc.stdout.readline()
            assert line, "the server closed stdout"
            answer = json.loads(line)
            if answer.get("id") in wanted:
                answers[answer["id"]] = answer
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    return answers


def _imports(log: Path) -> list[str]:
    lines = log.read_text(errors="replace").splitlines()
    return [line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")]


def _audited_reads() -> int:
    """read_note rows on the audit log of every server the test started (state.db)."""
    count = 0
    for db in Path(os.environ["XDG_DATA_HOME"]).rglob("state.db"):
        with sqlite3.connect(db) as conn:
            count += conn.execute("SELECT COUNT(*) FROM event_log WHERE tool = 'read_note'").fetchone()[0]
    return count


def test_a_warm_stdio_start_answers_plain_reads_before_the_server_is_built(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault({"Welcome.md": "---\ntags: [a]\n---\n# Welcome\n\nSee [[Other]].\n", "Other.md": "# Other\n"})
    handshake = [_line(1, "initialize", INIT), _line(None, "notifications/initialized")]
    calls = [_read(3, "Welcome"), _read(4, "../outside"), _read(5, "Other.md"), _line(2, "tools/list", {})]
    # the first start: every read through the chain; it stores the answers and what reads rely on
    cold = _session(root, handshake + calls, {2, 3, 4, 5}, tmp_path / "cold.txt")
    order = _imports(tmp_path / "cold.txt")
    assert order.index("service.protocol.first_reads") > order.index("pydantic")  # only by the built app
    assert _audited_reads() == 3
    warm = _session(root, handshake + calls, {2, 3, 4, 5}, tmp_path / "warm.txt")
    for msg_id in (3, 4, 5):
        assert warm[msg_id] == cold[msg_id]
    assert warm[4]["result"]["structuredContent"]["error"]["code"] == "path_invalid"  # the chain's refusal
    order = _imports(tmp_path / "warm.txt")
    # the first read was answered here (the module loads for it), before the settings' pydantic:
    # the read behind it is refused here, so only then does the server start loading
    assert order.index("service.protocol.first_reads") < order.index("pydantic")
    assert "service.tools.notes.read" in order  # the chain ran the reads again (replay) ...
    assert _audited_reads() == 6  # ... and each of the three is on the audit log


def test_a_warm_stdio_start_with_a_question_first_answers_everything_in_order(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault({"Welcome.md": "# Welcome\n"})
    handshake = [_line(1, "initialize", INIT), _line(None, "notifications/initialized")]
    calls = [_line(2, "prompts/list"), _read(3, "Welcome")]  # a question only the SDK answers, then a read
    cold = _session(root, handshake + calls, {2, 3}, tmp_path / "cold.txt")
    warm = _session(root, handshake + calls, {2, 3}, tmp_path / "warm.txt")
    assert warm[3] == cold[3] and "result" in warm[2]
    # behind a question the server answers, a read waits for it too: nothing is answered out of turn
    order = _imports(tmp_path / "warm.txt")
    assert order.index("service.protocol.first_reads") > order.index("pydantic")
