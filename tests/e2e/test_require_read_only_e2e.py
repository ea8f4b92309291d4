"""`require_read_only` over real HTTP (SDK client, both eras) and stdio: a mutating tool called by its
own name is `not_found` like an unknown tool and the vault is unchanged (T4 item 4)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import e2e

VAULT = {"Welcome.md": "# Welcome\n", "A.md": "# A\n"}
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("create_note", {"path": "direct", "content": "x"}),
    ("delete_note", {"path": "Welcome.md"}),
    ("append_note", {"path": "A", "content": "x\n"}),
)


def code_of(result: Any) -> str | None:
    assert result.structured_content is not None, result
    error: dict[str, Any] = result.structured_content.get("error") or {}
    return error.get("code")


async def check(client: Client) -> None:
    names = {t.name for t in (await client.list_tools()).tools}
    assert not names & {"create_note", "delete_note", "append_note"}
    for tool, args in CALLS:
        direct = await client.call_tool(tool, args)
        assert direct.is_error and code_of(direct) == "not_found", (tool, direct)
        via = await client.call_tool("call_capability", {"name": tool, "arguments": args})
        assert via.is_error and code_of(via) == "not_found", (tool, via)
    read = await client.call_tool("read_note", {"path": "A"})
    assert not read.is_error


@pytest.mark.parametrize("fast_calls", [True, False], ids=["fast-path", "sdk-path"])
async def test_http_refuses_mutating_tools_by_name(
    make_vault: Callable[..., Path], mode: str, fast_calls: bool
) -> None:
    root = make_vault(VAULT)
    settings: dict[str, Any] = {
        "tool_visibility": {"require_read_only": True},
        "tool_facade": {"mode": "flat"},
        "protocol": {"fast_calls": fast_calls},
    }
    async with e2e(root, **settings) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        before = harness.snapshot()
        await check(client)
        assert harness.snapshot() == before


async def test_stdio_refuses_mutating_tools_by_name(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(VAULT)
    env = {**os.environ, "VAULTGATE_TOOL_VISIBILITY__REQUIRE_READ_ONLY": "true"}
    args = ["-m", "service", "stdio", str(root), "--tool-facade", "flat"]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        await check(client)
    assert not (root / "direct.md").exists()
    assert (root / "Welcome.md").read_text(encoding="utf-8") == VAULT["Welcome.md"]
    assert (root / "A.md").read_text(encoding="utf-8") == VAULT["A.md"]
