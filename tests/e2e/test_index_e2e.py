"""index_status and reindex over real HTTP with the SDK client, in both eras, with progress."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.search.conftest import SEARCH_VAULT


async def test_index_status_and_reindex_with_progress(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(SEARCH_VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            status = await client.call_tool("index_status", {})
            assert not status.is_error and status.structured_content is not None
            for key in ("notes", "backlog", "health", "active_job"):
                assert key in status.structured_content
            assert status.structured_content["notes"] == 7
            updates: list[tuple[float, float | None]] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                updates.append((progress, total))

            done = await client.call_tool("reindex", {"mode": "full"}, progress_callback=on_progress)
            assert not done.is_error and done.structured_content is not None
            assert done.structured_content["job"]["status"] == "done"
            assert updates and updates[-1] == (7, 7)
            bad = await client.call_tool("reindex", {"mode": "nope"})
            assert bad.is_error and bad.structured_content is not None
            assert bad.structured_content["error"]["code"] == "validation_error"
            unknown = await client.call_tool("index_status", {"vault": "elsewhere"})
            assert unknown.structured_content is not None
            assert unknown.structured_content["error"]["code"] == "vault_not_found"
