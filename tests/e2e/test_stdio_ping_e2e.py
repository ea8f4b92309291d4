"""`ping` over stdio with the SDK client, end to end: on a handshake-era connection the front
answers it (the SDK's session spent ~0.4 ms of CPU on each), between reads that run on the fast
path; on a 2026-07-28 connection, which has no `ping`, the SDK still answers as it did."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.e2e.calls import ok

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
