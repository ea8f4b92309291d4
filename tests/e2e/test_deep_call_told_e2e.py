"""A call the framing refuses, though its line parses and names its id — arguments nested deeper
than the framing's bound (200) — is answered with that id, so the SDK client's call ends with the
error (a lone surrogate is told so too: tests/reliability/test_framing_*; the SDK client cannot
send one). The answer had id null: over stdio the client never matched
it to its call and waited forever (found in session 84's memory acceptance run)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.conftest import e2e

DEPTH = 230  # over the framing's 200; the SDK client itself will not send past ~255


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


async def _told(client: Client) -> None:
    with anyio.fail_after(60):  # before: no answer the client could match, the call hung
        with pytest.raises(MCPError) as refused:
            await client.call_tool("read_note", {"path": _nested(DEPTH)})
    assert refused.value.error.code == -32700 and "deeper than 200" in refused.value.error.message
    with anyio.fail_after(60):  # the session goes on
        after = await client.call_tool("read_note", {"path": "Home"})
    assert after.structured_content is not None and after.structured_content["title"] == "Home"


async def test_a_deep_call_is_told_over_stdio(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)])
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        await _told(client)


async def test_a_deep_call_is_told_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n"})) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await _told(client)
