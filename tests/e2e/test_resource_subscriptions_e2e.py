"""Resource subscriptions (`resources/subscribe`, clients up to 2025-11-25) are bounded per
connection and released with it, over real HTTP with the SDK client.

Before, each subscription kept its request's session proxy (~10 KB) for the server's life: a
client subscribing to 20,000 paths (no note need exist there) grew the server by 200 MB, and
nothing stopped it going on; a session that ended kept its subscriptions and its connection.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError

from tests.conftest import e2e
from tests.polling import until

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")


def _live_session_proxies() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, ServerSession))


async def test_subscriptions_hold_no_request_s_context_and_are_bounded_per_connection(
    make_vault: Callable[..., Path],
) -> None:
    async with e2e(make_vault({"A.md": "# A\n"})) as (url, vg), Client(url, mode="legacy") as client:
        await client.subscribe_resource("vault://main/A.md")
        before = _live_session_proxies()
        for i in range(200):  # paths where no note is: a subscription waits for one to appear
            await client.subscribe_resource(f"vault://main/nowhere/{i:03}.md")
        assert _live_session_proxies() - before < 20, "each subscription kept its request's session proxy"

        vg.app.resources.subscriptions.per_connection = 203
        await client.subscribe_resource("vault://main/B.md")
        await client.subscribe_resource("vault://main/B.md")  # held already: free
        await client.subscribe_resource("vault://main/C.md")
        with pytest.raises(MCPError) as refused:
            await client.subscribe_resource("vault://main/D.md")
        assert refused.value.error.code == types.INVALID_PARAMS and "203" in refused.value.error.message
        await client.unsubscribe_resource("vault://main/nowhere/000.md")
        await client.subscribe_resource("vault://main/D.md")
        assert len(vg.app.resources.subscriptions) == 203


async def test_a_session_s_subscriptions_end_with_it_and_the_others_still_hear(
    make_vault: Callable[..., Path],
) -> None:
    updates: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            await updates.put(str(message.params.uri))

    async with (
        e2e(make_vault({"A.md": "# A\n"})) as (url, vg),
        Client(url, mode="legacy", message_handler=on_message) as staying,
    ):
        await staying.subscribe_resource("vault://main/A.md")
        before = _live_session_proxies()
        async with Client(url, mode="legacy") as leaving:  # ends its session (DELETE) on the way out
            for i in range(50):
                await leaving.subscribe_resource(f"vault://main/gone/{i:02}.md")
            await leaving.subscribe_resource("vault://main/A.md")
        # the session's end is handled by the server's tasks on this loop
        await until(lambda: _live_session_proxies() <= before, "the ended session's subscriptions dropped")
        assert len(vg.app.resources.subscriptions) == 1
        await vg.ok("append_note", path="A", content="more\n")
        assert await asyncio.wait_for(updates.get(), 60) == "vault://main/A.md"


async def test_listen_streams_are_bounded_in_the_uris_they_hold(make_vault: Callable[..., Path]) -> None:
    """Protocol 2026-07-28: a `subscriptions/listen` stream asks for at most `per_stream` URIs and
    the open streams hold at most `total` together; what a stream held is freed when it ends.
    Before, a stream held every URI its request listed (five listens of 100,000 URIs grew the
    server by 150 MB; the SDK allows 1,024 streams)."""
    async with e2e(make_vault({"A.md": "# A\n"})) as (url, vg), Client(url, mode="auto") as client:
        listen = vg.app.resources.listen
        listen.per_stream, listen.total = 3, 5
        uris = [f"vault://main/n{i}.md" for i in range(4)]
        with pytest.raises(MCPError) as refused:
            async with client.listen(resource_subscriptions=uris):
                pass
        assert refused.value.error.code == types.INVALID_PARAMS and "3" in refused.value.error.message
        async with client.listen(resource_subscriptions=uris[:3]):
            with pytest.raises(MCPError) as full:
                async with client.listen(resource_subscriptions=uris[1:]):
                    pass
            assert full.value.error.code == types.INVALID_PARAMS and "5" in full.value.error.message
        await until(lambda: listen.held == 0, "the ended stream's URIs freed")  # by the server's handler on this loop
        async with client.listen(resource_subscriptions=uris[1:]), client.listen(resource_subscriptions=uris[:2]):
            assert listen.held == 5


async def test_the_subscriptions_of_all_connections_are_bounded_together(make_vault: Callable[..., Path]) -> None:
    """Each connection's bound alone let 1,000 sessions hold 1,000,000 subscriptions; the server
    holds at most `total` (100,000) together, and one dropped makes room for another."""
    async with (
        e2e(make_vault({"A.md": "# A\n"})) as (url, vg),
        Client(url, mode="legacy") as first,
        Client(url, mode="legacy") as second,
    ):
        subscriptions = vg.app.resources.subscriptions
        subscriptions.per_connection, subscriptions.total = 3, 4
        for i in range(3):
            await first.subscribe_resource(f"vault://main/a{i}.md")
        await second.subscribe_resource("vault://main/b0.md")
        with pytest.raises(MCPError) as full:
            await second.subscribe_resource("vault://main/b1.md")
        assert full.value.error.code == types.INVALID_PARAMS and "4" in full.value.error.message
        await first.unsubscribe_resource("vault://main/a0.md")
        await second.subscribe_resource("vault://main/b1.md")
        assert len(subscriptions) == 4
