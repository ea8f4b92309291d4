"""`vaultgate serve` sent SIGTERM while a call waits on a hung Obsidian (the Local REST API
stand-in holds every answer; the bridge's time-out is 60 s), in both protocol eras (U10 s76 #8,
P2 s77): uvicorn waited its graceful period, cancelled the request and logged "Exception in ASGI
application" with a traceback; the client got a cut stream ("SSE stream ended without a
response"). Now the call is answered before the period runs out (`service.http.stops`): a
JSON-RPC error, `data.code` `server_stopping`, retryable for a read, not retryable for a call
that acts in Obsidian (it may have run there); no traceback, exit status 0. A 2025-era client
that only holds its stream of server messages open no longer holds the stop for the whole
period with a traceback either.

The server is `python -m tests.stopped_mid_call` (the CLI's own `run_http`; graceful period 3 s).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.e2e.served import endpoint_of
from tests.e2e.test_bridge_confirm_e2e import ENV, answering
from tests.killed import REPO
from tests.stopped_mid_call import EOF_GRACE_ENV
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving


@contextlib.asynccontextmanager
async def _served(root: Path, tmp_path: Path, obsidian: Obsidian) -> AsyncIterator[tuple[str, subprocess.Popen[str]]]:
    """The server process on `root`, its bridge on the stand-in; its endpoint and the process
    (stderr in tmp_path/stderr)."""
    cert = make_cert(tmp_path / "tls")
    async with serving(obsidian, cert) as url:
        env = {**os.environ, "PYTHONPATH": str(REPO), ENV: KEY}
        argv = [sys.executable, "-m", "tests.stopped_mid_call", str(root), url, cert.fingerprint]
        with (
            (tmp_path / "stderr").open("w") as err,
            subprocess.Popen(  # noqa: ASYNC220 - `endpoint_of` reads its stdout line by line
                argv, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=err, text=True
            ) as proc,
        ):
            try:
                mcp_url = await anyio.to_thread.run_sync(endpoint_of, proc, 120)
                assert mcp_url, "the server printed no endpoint"
                yield mcp_url, proc
            finally:
                obsidian.released.set()
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()


async def _stopped_mid(
    client: Any, proc: subprocess.Popen[str], tool: str, args: dict[str, Any], held: Callable[[], bool]
) -> Any:
    """Call `tool`; once `held()` (the stand-in holds its request), SIGTERM the server; what the
    call raised."""

    async def signal_when_held() -> None:
        while not held():  # noqa: ASYNC110 - the stand-in's record of what reached it
            await anyio.sleep(0.02)
        proc.send_signal(signal.SIGTERM)

    async with anyio.create_task_group() as tg:
        tg.start_soon(signal_when_held)
        with pytest.raises(MCPError) as raised:
            await client.call_tool(tool, args)
    return raised.value


def _ended_cleanly(proc: subprocess.Popen[str], tmp_path: Path) -> str:
    assert proc.wait(timeout=60) == 0
    log = (tmp_path / "stderr").read_text()
    assert "Traceback" not in log and "Exception in ASGI application" not in log, log[-3000:]
    assert "timeout graceful shutdown exceeded" not in log, log[-3000:]
    return log


def _vault(make_vault: Callable[..., Path]) -> Path:
    return make_vault({"Home.md": "# Home\n"})


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_sigterm_mid_bridge_read_answers_server_stopping_retryable(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str
) -> None:
    obsidian = Obsidian(hold=True)
    async with _served(_vault(make_vault), tmp_path, obsidian) as (url, proc), Client(url, mode=mode) as client:
        error = await _stopped_mid(client, proc, "list_quickadd_actions", {}, lambda: bool(obsidian.sent))
        assert error.error.data["code"] == "server_stopping" and error.error.data["retryable"] is True, error.error
        assert "stopping" in error.error.message
        await anyio.to_thread.run_sync(_ended_cleanly, proc, tmp_path)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_sigterm_mid_acting_call_answers_that_it_may_have_run(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str
) -> None:
    obsidian = Obsidian()
    asked: list[str] = []
    accept = answering("accept", asked)

    approved = [10**6]  # how many requests the stand-in had seen when the human approved

    async def approve_then_hang(context: Any, params: Any) -> Any:
        obsidian.hold = True  # from now on Obsidian never answers (a 2026 client calls again: its first request)
        approved[0] = len(obsidian.sent)
        return await accept(context, params)

    async with (
        _served(_vault(make_vault), tmp_path, obsidian) as (url, proc),
        Client(url, mode=mode, elicitation_callback=approve_then_hang) as client,
    ):
        call = {"command_id": "graph:open"}
        error = await _stopped_mid(client, proc, "execute_command", call, lambda: len(obsidian.sent) > approved[0])
        assert asked, "the human was not asked"
        data = error.error.data
        assert data["code"] == "server_stopping" and data["retryable"] is False, error.error
        assert "execute_command" in error.error.message and "may have run" in error.error.message
        await anyio.to_thread.run_sync(_ended_cleanly, proc, tmp_path)


async def test_sigterm_with_an_idle_2025_client_connected_stops_without_a_traceback(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """Its GET stream (server messages) is ended at once: uvicorn cancelled it at the end of the
    graceful period, with a traceback."""
    async with _served(_vault(make_vault), tmp_path, Obsidian()) as (url, proc), Client(url, mode="legacy") as client:
        assert (await client.call_tool("list_notes", {})).is_error is False
        await anyio.sleep(0.5)  # the client's GET stream is open
        proc.send_signal(signal.SIGTERM)
        await anyio.to_thread.run_sync(_ended_cleanly, proc, tmp_path)


async def test_stdin_closed_mid_call_answers_it_before_the_stdio_server_exits(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """Over stdio the client ends the session by closing stdin (the MCP lifecycle); the call still
    running gets its grace (`service.protocol.sdk_pumps.EOF_GRACE_S`), then a JSON-RPC error
    (`-32000` "Connection closed"), and the process exits 0 without a traceback."""
    obsidian = Obsidian(hold=True)
    cert = make_cert(tmp_path / "tls")
    async with serving(obsidian, cert) as url:
        # a 1 s grace (10 s by default, waited out in full: the stand-in holds the call to the end)
        env = {**os.environ, "PYTHONPATH": str(REPO), ENV: KEY, EOF_GRACE_ENV: "1"}
        argv = [sys.executable, "-m", "tests.stopped_mid_call", str(_vault(make_vault)), url, cert.fingerprint, "stdio"]
        async with await anyio.open_process(argv, env=env, cwd=REPO) as proc:
            assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
            hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
            for message in (
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_quickadd_actions"}},
            ):
                await proc.stdin.send(json.dumps(message).encode() + b"\n")
            with anyio.fail_after(120):
                while not obsidian.sent:  # noqa: ASYNC110 - the stand-in's record of what reached it
                    await anyio.sleep(0.02)
            await proc.stdin.aclose()
            out, err = bytearray(), bytearray()
            with anyio.fail_after(120):
                async for chunk in proc.stdout:
                    out += chunk
                async for chunk in proc.stderr:
                    err += chunk
                assert await proc.wait() == 0
            obsidian.released.set()
    answers = {m["id"]: m for m in map(json.loads, out.decode().splitlines())}
    assert answers[2]["error"] == {"code": -32000, "message": "Connection closed"}, answers
    assert b"Traceback" not in err, err.decode()[-3000:]
