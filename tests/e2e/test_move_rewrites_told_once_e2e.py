"""A subscriber to a note that a move rewrites hears of the rewrite once, over real HTTP with the
SDK client: the file watcher drops the events of the move's own writes while the move runs.

Before, the watcher applied each rewritten note as another program's edit while the move still
held its changes (`ChangeBus.batch`), and the subscriber was told twice: once for that "external"
change, once for the move's own. The move is held open at its end (its batch wrapped) until a
later external write has been published by the watcher, so the watcher has handled the move's
events while it ran, whatever the machine's speed. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from service.vault.events import FileChange
from tests.conftest import Harness, e2e
from tests.e2e.calls import ok
from tests.polling import until

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
WITHIN = 60.0
URI = "vault://main/Notes/n3.md"
OTHER = "vault://main/Other.md"


async def _published(vg: Harness, name: str) -> None:
    """Write `name` as another program would and wait until the watcher has told it: every event
    before it has been handled."""
    seen = asyncio.Event()

    async def heard(changes: Sequence[FileChange]) -> None:
        if any(c.path == name and c.origin == "external" for c in changes):
            seen.set()

    bus = vg.app.vaults["main"].bus
    bus.subscribe(heard)
    try:
        (vg.root / name).write_text("# s\n", encoding="utf-8")
        await asyncio.wait_for(seen.wait(), WITHIN)
    finally:
        bus.unsubscribe(heard)


async def test_a_subscriber_hears_of_a_moves_rewrite_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = {f"Notes/n{i}.md": f"# n{i}\n\nSee [[Hub]].\n" for i in range(8)}
    files = {"Hub.md": "# Hub\n", "Other.md": "# Other\n", **notes}
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    async with (
        e2e(make_vault(files)) as (url, vg),
        Client(url, mode="legacy", message_handler=on_message) as client,
    ):
        await vg.indexed()
        await client.subscribe_resource(URI)
        await client.subscribe_resource(OTHER)
        bus = vg.app.vaults["main"].bus
        batch = bus.batch

        @contextlib.asynccontextmanager
        async def held_open() -> AsyncIterator[None]:
            async with batch():
                yield
                await _published(vg, "During.md")

        monkeypatch.setattr(bus, "batch", held_open)
        done = await ok(client, "rename_note", path="Hub.md", new_path="Hub2")
        assert done["notes_rewritten"] == 8
        await _published(vg, "After.md")
        await ok(client, "append_note", path="Other", content="a later edit\n")  # told after the rename's
        await until(lambda: OTHER in updates, "the later edit's notification")
        assert updates == [URI, OTHER]  # the rename's rewrite once, then the later edit
        assert (vg.root / "Notes/n3.md").read_text(encoding="utf-8") == "# n3\n\nSee [[Hub2]].\n"
