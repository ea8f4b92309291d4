"""A vault watched by polling (`[index] watch_mode = "poll"`, what a network file system needs),
end to end with the SDK client: over real HTTP in both eras and over stdio, what another
program writes and deletes is found by `search_text`, `index_status` says the vault is polled,
and a subscriber to a note hears of another program's edit to it. Every wait is bounded."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.polling import until

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
POLLING = {"watch_mode": "poll", "watch_poll_s": 1.0}
FILES = {"Notes/Kept.md": "# Kept\n\nplain words\n", "Notes/Gone.md": "# Gone\n\nvanishingword\n"}


async def _hits(client: Client, query: str) -> list[str]:
    return [item["path"] for item in (await ok(client, "search_text", query=query))["items"]]


async def _other_program_edits(client: Client, root: Path) -> None:
    """What another program does, found through the client: a note made, one deleted."""
    (root / "Notes" / "Fresh.md").write_text("# Fresh\n\nfreshword\n", encoding="utf-8")
    (root / "Notes" / "Gone.md").unlink()

    async def seen() -> bool:
        return await _hits(client, "freshword") == ["Notes/Fresh.md"] and await _hits(client, "vanishingword") == []

    await until(seen, "the other program's edits found by a look", pause=0.2)


@pytest.mark.covers("index_status", "success")
async def test_a_polled_vault_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(FILES)
    async with e2e(root, index=POLLING) as (url, vg), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await vg.indexed()
        status = await ok(client, "index_status")
        assert (status["watching"], status["polling"]) == (True, "watch_mode")
        assert await _hits(client, "vanishingword") == ["Notes/Gone.md"]
        await _other_program_edits(client, root)


async def test_a_subscriber_hears_of_a_polled_edit(make_vault: Callable[..., Path]) -> None:
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    root = make_vault(FILES)
    async with (
        e2e(root, index=POLLING) as (url, vg),
        Client(url, mode="legacy", message_handler=on_message) as client,
    ):
        await vg.indexed()
        await client.subscribe_resource("vault://main/Notes/Kept.md")
        (root / "Notes" / "Kept.md").write_text("# Kept\n\nchanged elsewhere\n", encoding="utf-8")
        await until(lambda: updates, "the subscriber told of the edit")
        assert updates == ["vault://main/Notes/Kept.md"]
        read = await ok(client, "read_note", path="Kept")
        assert "changed elsewhere" in read["content"]


async def test_a_polled_vault_over_stdio(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    env = {
        **os.environ,
        "VAULTGATE_EMBEDDINGS__PROVIDER": "none",
        "VAULTGATE_INDEX__WATCH_MODE": "poll",
        "VAULTGATE_INDEX__WATCH_POLL_S": "1",
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)], env=env)
    async with Client(params, mode="auto") as client:

        async def ready() -> bool:
            return bool((await ok(client, "index_status"))["ready"])

        await until(ready, "the first index")
        assert (await ok(client, "index_status"))["polling"] == "watch_mode"
        await _other_program_edits(client, root)
