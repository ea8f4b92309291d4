"""E2E (both eras, SDK client over real HTTP): links a macOS client spelled in NFD name the note
spelled in NFC — get_backlinks lists them, find_broken_links does not, and rename_note rewrites
them (wikilink, Markdown href, property link, canvas file node); before, the rename left each one
naming the old name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.graph.test_links_spelled_in_nfd import CAFE, LINKING, NEW, NFD, VAULT


async def test_links_spelled_in_nfd_follow_a_rename(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            backlinks = await ok(client, "get_backlinks", {"path": CAFE})
            assert sorted({b["path"] for b in backlinks["items"]}) == LINKING, backlinks
            assert (await ok(client, "find_broken_links", {}))["items"] == []
            done = await ok(client, "rename_note", {"path": NFD, "new_path": NEW})
            assert done["links_rewritten"] == 7, done
            await harness.settled()
            assert NFD not in harness.read("Hub.md") and f"[[{NEW}#Menu|the menu]]" in harness.read("Hub.md")
            assert NEW in harness.read("Board.canvas") and NEW in harness.read("Props.md")
            assert (await ok(client, "find_broken_links", {}))["items"] == []
