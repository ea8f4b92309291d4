"""Protocol 2026-07-28 subscriptions: `subscriptions/listen` streams hear about note changes made
through vaultgate and by other programs (the older era's resources/subscribe is tested beside)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from mcp import Client
from mcp.shared.subscriptions import ResourceUpdated

from tests.conftest import e2e


async def test_listen_streams_receive_resource_updates(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault()) as (url, harness):
        await harness.indexed()
        async with Client(url, mode="auto") as client:
            uri = "vault://main/Welcome.md"
            async with client.listen(resource_subscriptions=[uri]) as sub:
                events: asyncio.Queue[object] = asyncio.Queue()

                async def pump() -> None:
                    async for event in sub:
                        await events.put(event)

                task = asyncio.create_task(pump())
                try:
                    await client.call_tool("append_note", {"path": "Welcome", "content": "more\n"})
                    first = await asyncio.wait_for(events.get(), 60)
                    assert isinstance(first, ResourceUpdated) and first.uri == uri
                    (harness.root / "Welcome.md").write_text("edited elsewhere\n", encoding="utf-8")
                    second = await asyncio.wait_for(events.get(), 60)
                    assert isinstance(second, ResourceUpdated) and second.uri == uri
                    await client.call_tool("append_note", {"path": "Projects/Plan", "content": "x\n"})
                    await client.call_tool("append_note", {"path": "Welcome", "content": "again\n"})
                    third = await asyncio.wait_for(events.get(), 60)
                    assert isinstance(third, ResourceUpdated) and third.uri == uri  # Plan was not asked for
                finally:
                    task.cancel()
