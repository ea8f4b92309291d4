"""No lost update under concurrency: eight SDK clients on a real server each add their lines to
one note by etag-guarded read-modify-write (read, append a line, write with `expected_etag`,
retry on `conflict`); at the end the note holds every line exactly once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e

CLIENTS, ROUNDS = 8, 6


async def add_lines(url: str, who: int) -> int:
    """Returns how many conflicts this client met (and retried)."""
    conflicts = 0
    async with Client(url) as client:
        for n in range(ROUNDS):
            while True:
                read = await client.call_tool("read_note", {"path": "Counter"})
                assert not read.is_error and read.structured_content is not None
                note = read.structured_content
                content = note["content"] + f"- client {who} line {n}\n"
                wrote = await client.call_tool(
                    "write_note",
                    {"path": "Counter", "content": content, "mode": "overwrite", "expected_etag": note["etag"]},
                )
                if not wrote.is_error:
                    break
                assert wrote.structured_content is not None
                error = wrote.structured_content["error"]
                if error["code"] == "throttled":  # eight writers at once reach the write rate limit
                    await asyncio.sleep(error["details"]["retry_after_seconds"])
                    continue
                assert error["code"] == "conflict", wrote.structured_content
                conflicts += 1
    return conflicts


async def test_etag_guarded_read_modify_write_loses_nothing(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Counter.md": "# Counter\n\n"})
    async with e2e(root) as (url, _):
        await asyncio.gather(*(add_lines(url, who) for who in range(CLIENTS)))
    lines = [line for line in (root / "Counter.md").read_text(encoding="utf-8").splitlines() if line.startswith("- ")]
    expected = {f"- client {who} line {n}" for who in range(CLIENTS) for n in range(ROUNDS)}
    assert sorted(lines) == sorted(expected)  # each exactly once
    assert len(lines) == CLIENTS * ROUNDS
