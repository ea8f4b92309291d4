"""resources/list walks the vault once for all its pages (review of session 67: each page of 200
walked the whole vault with every note's ACL decision, 500 walks to list 100,000 notes), and walks
again once anything changed: a note written by a tool or by another program, or the ACL rules
reloaded. Over real HTTP with the SDK client, in both eras."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.protocol import resources
from service.vault.files import VaultFiles
from tests.conftest import e2e


async def _all(client: Client) -> list[str]:
    names: list[str] = []
    cursor = None
    while True:
        page = await client.list_resources(cursor=cursor)
        names += [r.name for r in page.resources]
        if (cursor := page.next_cursor) is None:
            return names


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_pages_of_one_listing_walk_the_vault_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    root = make_vault({f"F{i % 3}/n{i:03}.md": "x\n" for i in range(450)})
    walks: list[str] = []
    real_walk = VaultFiles.walk

    def walk(self: VaultFiles, folder: Any, **kwargs: Any) -> Any:
        walks.append(folder.rel)
        return real_walk(self, folder, **kwargs)

    monkeypatch.setattr(VaultFiles, "walk", walk)
    async with e2e(root) as (url, vg), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await vg.indexed()
        first = await _all(client)
        assert len(first) == 450 == len(set(first)) and len(walks) == 1, len(walks)
        assert await _all(client) == first and len(walks) == 1  # nothing changed: the kept walk

        await vg.ok("write_note", path="F0/new", content="new\n")
        again = await _all(client)
        assert "F0/new.md" in again and len(again) == 451 and len(walks) == 2

        (root / "F1" / "n001.md").unlink()  # another program: heard through the watcher
        for _ in range(200):
            if "F1/n001.md" not in await _all(client):
                break
        assert "F1/n001.md" not in await _all(client)

        walked = len(walks)
        guard = vg.app.services.guard
        guard.reload(vg.app.services.settings)  # type: ignore[attr-defined]
        await _all(client)
        assert len(walks) == walked + 1, "the rules reloaded: walked again"


async def test_a_kept_walk_is_dropped_after_its_time(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resources, "LISTED_KEEP_S", 0.01)
    async with e2e(make_vault({"a.md": "x\n"})) as (url, vg), Client(url, mode="legacy") as client:
        await client.list_resources()
        kept = vg.app.resources._listed  # type: ignore[attr-defined]
        for _ in range(100):
            if not kept:
                break
            await asyncio.sleep(0.02)  # the server runs on this loop
        assert not kept
