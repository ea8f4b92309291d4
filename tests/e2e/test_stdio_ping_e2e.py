"""`ping` over stdio with the SDK client, end to end: on a handshake-era connection the front
answers it (the SDK's session spent ~0.4 ms of CPU on each), between reads that run on the fast
path; on a 2026-07-28 connection, which has no `ping`, the SDK still answers as it did."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.e2e.calls import ok

WITHIN = 60.0

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")


def _params(root: Path) -> StdioServerParameters:
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
    return StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)], env=env)


async def test_pings_between_reads_on_a_handshake_connection(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Home.md": "# Home\n\nhello\n"})
    async with Client(_params(root), mode="legacy") as client:
        for _ in range(3):
            pong = await client.send_ping()
            assert pong.model_dump(exclude_none=True) == {}
            assert (await ok(client, "read_note", path="Home"))["content"].endswith("hello\n")


async def test_a_ping_on_a_2026_connection_is_the_sdks_to_refuse(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Home.md": "# Home\n\nhello\n"})
    async with Client(_params(root), mode="auto") as client:
        assert (await ok(client, "read_note", path="Home"))["content"].endswith("hello\n")
        with pytest.raises(MCPError, match="Method not found"):
            await client.send_ping()


async def test_a_ping_with_a_non_ascii_id_is_answered_with_the_sdks_bytes_before_and_after_the_attach(
    make_vault: Callable[..., Path],
) -> None:
    """Raw lines to a real `vaultgate stdio`: a ping sent with `initialize` is answered by the front
    before the server loads, one sent after a call by the front after the attach; both write the
    id as the SDK does (UTF-8, where the first wrote "\\u00e9\\u00fc")."""
    root = make_vault({"Home.md": "# Home\n\nhello\n"})
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "service", "stdio", str(root), env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    rid = "é-ü"
    ping = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "ping"}, ensure_ascii=False).encode() + b"\n"
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
    expected = b'{"jsonrpc":"2.0","id":"\xc3\xa9-\xc3\xbc","result":{}}\n'

    def line(msg: dict[str, object]) -> bytes:
        return json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n"

    try:
        proc.stdin.write(line({"id": 0, "method": "initialize", "params": init}))
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n' + ping)
        await proc.stdin.drain()
        assert json.loads(await asyncio.wait_for(proc.stdout.readline(), WITHIN))["id"] == 0
        assert await asyncio.wait_for(proc.stdout.readline(), WITHIN) == expected
        call = {"name": "read_note", "arguments": {"path": "Home"}}
        proc.stdin.write(line({"id": 1, "method": "tools/call", "params": call}))
        proc.stdin.write(line({"id": 2, "method": "prompts/list"}))
        await proc.stdin.drain()
        got = {json.loads(await asyncio.wait_for(proc.stdout.readline(), WITHIN))["id"] for _ in range(2)}
        assert got == {1, 2}  # prompts/list is the SDK's: the session is attached
        proc.stdin.write(ping)
        await proc.stdin.drain()
        assert await asyncio.wait_for(proc.stdout.readline(), WITHIN) == expected
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), WITHIN)


async def test_calls_cancelled_as_they_are_sent_leave_the_server_answering_and_their_ids_free(
    make_vault: Callable[..., Path],
) -> None:
    """Raw lines to a real `vaultgate stdio`: 100 reads, each with its `notifications/cancelled`
    right behind it in one write. A call cancelled before its task first ran kept its id in flight
    and its slot for good: its id was refused as "in use" ever after, and 64 such calls held every
    later line (the server answered nothing more). Now a ping after them is answered, and so is
    a ping with each of their ids (answers to calls that ended before their cancel came are the
    client's to ignore)."""
    root = make_vault({"Home.md": "# Home\n\nhello\n"})
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "service", "stdio", str(root), env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}

    def line(msg: dict[str, object]) -> bytes:
        return json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n"

    async def answer_to(rid: object) -> dict[str, object]:
        while True:
            got = json.loads(await asyncio.wait_for(proc.stdout.readline(), WITHIN))  # type: ignore[union-attr]
            if got.get("id") == rid:
                return dict(got)

    try:
        proc.stdin.write(line({"id": 0, "method": "initialize", "params": init}))
        proc.stdin.write(line({"method": "notifications/initialized"}) + line({"id": "L", "method": "prompts/list"}))
        await proc.stdin.drain()
        await answer_to("L")  # the SDK's: the session is attached
        read = {"name": "read_note", "arguments": {"path": "Home"}}
        burst = b"".join(
            line({"id": n, "method": "tools/call", "params": read})
            + line({"method": "notifications/cancelled", "params": {"requestId": n}})
            for n in range(1, 101)
        )
        proc.stdin.write(burst + line({"id": "after", "method": "ping"}))
        await proc.stdin.drain()
        assert (await answer_to("after"))["result"] == {}
        proc.stdin.write(b"".join(line({"id": f"again-{n}", "method": "ping"}) for n in range(1, 101)))
        proc.stdin.write(b"".join(line({"id": n, "method": "ping"}) for n in range(1, 101)))
        await proc.stdin.drain()
        assert (await answer_to("again-100"))["result"] == {}
        pongs: dict[object, object] = {}
        while len(pongs) < 100:
            got = json.loads(await asyncio.wait_for(proc.stdout.readline(), WITHIN))
            if "error" in got or got.get("result") == {}:  # not a late answer to a read
                pongs[got["id"]] = got.get("result", got.get("error"))
        assert pongs == {n: {} for n in range(1, 101)}
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), WITHIN)
