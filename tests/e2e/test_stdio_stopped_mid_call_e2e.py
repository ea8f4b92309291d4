"""`vaultgate stdio` sent SIGTERM while a call waits on a hung Obsidian (the Local REST API
stand-in holds every answer; the bridge's time-out is 60 s), in both protocol eras, on the fast
path and on the SDK's (P3 s78; P2 s77 left it): the process exited at once (`os._exit`) with the
call unanswered, so the client waited for an answer that never came. Now each call in flight
gets a short grace (`service.protocol.stdio_stop.STOP_GRACE_S`), then is answered with the same
error `vaultgate serve` gives (`service.http.stops`): JSON-RPC -32603, `data.code`
`server_stopping`, retryable for a read, not for a call that acts in Obsidian; no traceback,
exit status 0. The MCP stdio shutdown ("close stdin, wait, then SIGTERM") is covered too: a
SIGTERM during the end-of-input grace answers the call at once.

The server is `python -m tests.stopped_mid_call … stdio` (the CLI's stdio start: front, then app).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import Process

from tests.conftest import snapshot, write_files
from tests.e2e.test_bridge_confirm_e2e import ENV
from tests.killed import REPO
from tests.long_changes import HUB_NOTES, hub_files
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
SDK_PATH = {"io.modelcontextprotocol/logLevel": "debug"}  # a per-request log level: the SDK answers


class Wire:
    """A raw stdio client: lines out, every line in kept; an elicitation is accepted by `on_ask`."""

    def __init__(self, proc: Process, on_ask: Callable[[], None]) -> None:
        self.proc = proc
        self.on_ask = on_ask
        self.received: list[dict[str, Any]] = []
        self.asked = 0
        self.closed = anyio.Event()  # stdout ended

    async def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        await self.proc.stdin.send(json.dumps(message).encode() + b"\n")

    async def read(self) -> None:
        assert self.proc.stdout is not None
        buffered = b""
        async for chunk in self.proc.stdout:
            buffered += chunk
            *lines, buffered = buffered.split(b"\n")
            for line in filter(None, lines):
                message = json.loads(line)
                self.received.append(message)
                if message.get("method") == "elicitation/create":
                    self.asked += 1
                    self.on_ask()
                    answer = {"action": "accept", "content": {"confirm": True}}
                    await self.send({"jsonrpc": "2.0", "id": message["id"], "result": answer})
        self.closed.set()

    def answer(self, rid: Any) -> dict[str, Any] | None:
        return next((m for m in self.received if m.get("id") == rid and "method" not in m), None)


@contextlib.asynccontextmanager
async def _stdio(
    root: Path, tmp_path: Path, obsidian: Obsidian, on_ask: Callable[[], None] = lambda: None
) -> AsyncIterator[tuple[Wire, Path]]:
    cert = make_cert(tmp_path / "tls")
    async with serving(obsidian, cert) as url:
        env = {**os.environ, "PYTHONPATH": str(REPO), ENV: KEY}
        argv = [sys.executable, "-m", "tests.stopped_mid_call", str(root), url, cert.fingerprint, "stdio"]
        errlog = tmp_path / "stderr"
        with errlog.open("wb") as err:
            async with await anyio.open_process(argv, env=env, cwd=REPO, stderr=err) as proc:
                wire = Wire(proc, on_ask)
                try:
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(wire.read)
                        yield wire, errlog
                        tg.cancel_scope.cancel()
                finally:
                    obsidian.released.set()
                    if proc.returncode is None:
                        proc.kill()


async def _open(wire: Wire, modern: bool, sdk: bool, elicit: bool = False) -> Callable[[int, str, dict[str, Any]], Any]:
    """The connection opened in its era; a function making a `tools/call` request for it."""
    if not modern:
        caps = {"elicitation": {}} if elicit else {}
        hello = {"protocolVersion": "2025-06-18", "capabilities": caps, "clientInfo": {"name": "t", "version": "1"}}
        await wire.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": hello})
        await wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        if sdk:  # a connection that set a log level is answered by the SDK's session
            await wire.send({"jsonrpc": "2.0", "id": "lvl", "method": "logging/setLevel", "params": {"level": "debug"}})

    def call(rid: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        if modern:
            params["_meta"] = {**ENVELOPE, **(SDK_PATH if sdk else {})}
        return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}

    return call


async def _until(check: Callable[[], Any]) -> None:
    with anyio.fail_after(120):
        while not check():  # noqa: ASYNC110 - the stand-in's record of what reached it
            await anyio.sleep(0.02)


async def _ended(wire: Wire, errlog: Path) -> int:
    """Wait for the process to end and its stdout to close; its exit status (its log holds no traceback)."""
    with anyio.fail_after(60):
        status = await wire.proc.wait()
        await wire.closed.wait()
    log = await anyio.Path(errlog).read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
    return status


def _stopping(answer: dict[str, Any] | None) -> dict[str, Any]:
    assert answer is not None and "error" in answer, answer
    error = answer["error"]
    assert error["code"] == -32603 and error["data"]["code"] == "server_stopping", error
    return dict(error)


PATHS = [
    pytest.param(False, False, id="handshake-fast"),
    pytest.param(False, True, id="handshake-sdk"),
    pytest.param(True, False, id="2026-fast"),
    pytest.param(True, True, id="2026-sdk"),
]


@pytest.mark.parametrize(("modern", "sdk"), PATHS)
async def test_sigterm_mid_bridge_read_answers_server_stopping_retryable(
    make_vault: Callable[..., Path], tmp_path: Path, modern: bool, sdk: bool
) -> None:
    obsidian = Obsidian(hold=True)
    async with _stdio(make_vault({"Home.md": "# Home\n"}), tmp_path, obsidian) as (wire, errlog):
        call = await _open(wire, modern, sdk)
        await wire.send(call(2, "list_quickadd_actions", {}))
        await _until(lambda: obsidian.sent)
        wire.proc.send_signal(signal.SIGTERM)
        status = await _ended(wire, errlog)
    assert status == 0
    error = _stopping(wire.answer(2))
    assert error["data"]["retryable"] is True and "stopping" in error["message"], error


@pytest.mark.parametrize("sdk", [False, True], ids=["fast", "sdk"])
async def test_sigterm_mid_acting_call_answers_that_it_may_have_run(
    make_vault: Callable[..., Path], tmp_path: Path, sdk: bool
) -> None:
    obsidian = Obsidian()
    approved = [10**6]

    def approve_then_hang() -> None:
        obsidian.hold = True  # from now on Obsidian never answers
        approved[0] = len(obsidian.sent)

    async with _stdio(make_vault({"Home.md": "# Home\n"}), tmp_path, obsidian, approve_then_hang) as (wire, errlog):
        call = await _open(wire, modern=False, sdk=sdk, elicit=True)
        await wire.send(call(2, "execute_command", {"command_id": "graph:open"}))
        await _until(lambda: len(obsidian.sent) > approved[0])
        wire.proc.send_signal(signal.SIGTERM)
        status = await _ended(wire, errlog)
    assert status == 0 and wire.asked == 1
    error = _stopping(wire.answer(2))
    assert error["data"]["retryable"] is False, error
    assert "execute_command" in error["message"] and "may have run" in error["message"], error


@pytest.mark.parametrize("sdk", [False, True], ids=["fast", "sdk"])
async def test_sigterm_after_stdin_closed_answers_the_call_at_once(
    make_vault: Callable[..., Path], tmp_path: Path, sdk: bool
) -> None:
    """The MCP stdio shutdown: the client closes stdin, waits, then sends SIGTERM. The call still
    running had the end-of-input grace (10 s) before "Connection closed"; the signal ended the
    process at once without an answer."""
    obsidian = Obsidian(hold=True)
    async with _stdio(make_vault({"Home.md": "# Home\n"}), tmp_path, obsidian) as (wire, errlog):
        call = await _open(wire, modern=False, sdk=sdk)
        await wire.send(call(2, "list_quickadd_actions", {}))
        await _until(lambda: obsidian.sent)
        assert wire.proc.stdin is not None
        await wire.proc.stdin.aclose()
        await anyio.sleep(0.5)
        wire.proc.send_signal(signal.SIGTERM)
        status = await _ended(wire, errlog)
    assert status == 0
    error = _stopping(wire.answer(2))
    assert error["data"]["retryable"] is True, error


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_while_the_server_still_loads_answers_what_waits_for_it(
    make_vault: Callable[..., Path], tmp_path: Path, sig: signal.Signals
) -> None:
    """`vaultgate stdio` (the real CLI) answers `initialize` from its front at once and loads the
    server for a second or more meanwhile; a signal then ended the process by the signal (status
    -15, or a KeyboardInterrupt traceback for SIGINT), the requests waiting for the server
    unanswered. Now each is answered (`server_stopping`, not started: retryable) and the exit
    status is 0 (`service.protocol.stopping.stop_early_on_signal`). A request the server got to
    answer first is answered as usual."""
    root = make_vault({"Home.md": "# Home\n"})
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
    argv = [sys.executable, "-m", "service", "stdio", str(root)]
    errlog = tmp_path / "stderr"
    with errlog.open("wb") as err:
        async with await anyio.open_process(argv, env=env, cwd=REPO, stderr=err) as proc:
            wire = Wire(proc, lambda: None)
            async with anyio.create_task_group() as tg:
                tg.start_soon(wire.read)
                await _open(wire, modern=False, sdk=False)
                await _until(lambda: wire.answer("init"))
                for rid, method, params in (
                    (2, "tools/list", {"cursor": "0"}),
                    (3, "tools/call", {"name": "read_note", "arguments": {"path": "Home"}}),
                    (4, "prompts/list", {}),
                ):
                    await wire.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
                proc.send_signal(sig)
                status = await _ended(wire, errlog)
    assert status == 0
    for rid in (2, 3, 4):
        answer = wire.answer(rid)
        assert answer is not None, (rid, wire.received)
        if "error" in answer:
            assert _stopping(answer)["data"]["retryable"] is True, answer


@pytest.mark.parametrize("sdk", [False, True], ids=["fast", "sdk"])
async def test_sigterm_mid_rename_over_stdio_rolls_back_and_answers_server_stopping(tmp_path: Path, sdk: bool) -> None:
    """Nothing is half-written by the stop: SIGTERM from inside `rename_note`'s commit phase, after
    its first file (`python -m tests.stopped_mid_change ROOT stdio`, as tests/e2e/
    test_stopped_mid_change_e2e.py does over HTTP): the change rolls back, the call answers
    `server_stopping` itself, the process exits 0 and the vault is as it was."""
    root = tmp_path / "hub"
    root.mkdir()
    write_files(root, hub_files())
    before = snapshot(root)
    argv = [sys.executable, "-m", "tests.stopped_mid_change", str(root), "stdio"]
    errlog = tmp_path / "stderr"
    with errlog.open("wb") as err:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        async with await anyio.open_process(argv, env=env, cwd=REPO, stderr=err) as proc:
            wire = Wire(proc, lambda: None)
            async with anyio.create_task_group() as tg:
                tg.start_soon(wire.read)
                call = await _open(wire, modern=False, sdk=sdk)
                await wire.send(call(2, "reindex", {"mode": "sync"}))
                await _until(lambda: wire.answer(2))
                await wire.send(call(3, "rename_note", {"path": "Hub", "new_path": "Centre"}))
                status = await _ended(wire, errlog)
    assert status == 0
    answer = wire.answer(3)
    assert answer is not None and "result" in answer, answer
    error = answer["result"]["structuredContent"]["error"]
    assert error["code"] == "server_stopping" and error["retryable"] is True, error
    assert error["details"] == {"done_before_stop": 1, "total": HUB_NOTES + 1}
    assert snapshot(root) == before
