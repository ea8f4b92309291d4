"""A vault holding a folder the inotify watch cannot watch (a path past PATH_MAX here; a folder
not readable to the server's user is the same case) is still watched, end to end over real
HTTP with the SDK client: another program's new note is found by `search_text`. Before, the
watch of the whole vault failed on that folder and was tried again every few seconds for good,
so no edit from outside was ever seen. Every wait is bounded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from service.indexer import inotify
from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.polling import until
from tests.unit.indexer.test_inotify_left_out import too_deep

pytestmark = [
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
    pytest.mark.skipif(not inotify.available(), reason="inotify is Linux's"),
]


async def test_an_edit_is_found_in_a_vault_holding_a_folder_too_deep_to_watch(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Notes/Kept.md": "# Kept\n\nplain words\n"})
    too_deep(root / "Notes")
    async with e2e(root) as (url, vg), Client(url, mode="legacy") as client:
        await vg.indexed()
        status = await ok(client, "index_status")
        assert (status["watching"], status["polling"]) == (True, None)
        (root / "Notes" / "Fresh.md").write_text("# Fresh\n\nfreshword\n", encoding="utf-8")

        async def seen() -> bool:
            hits = (await ok(client, "search_text", query="freshword"))["items"]
            return [item["path"] for item in hits] == ["Notes/Fresh.md"]

        await until(seen, "another program's note found through the watch", pause=0.2)
