"""resources/list walks the vault once for all its pages (each page of 200 walked the whole vault
with every note's ACL decision: 500 walks to list 100,000 notes), path completion once for many
keystrokes (each walked it), and both walk again once anything changed: a note written by a tool
or by another program, or the ACL rules reloaded (`service.protocol.walked`). Over real HTTP with
the SDK client, in both eras."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from service.protocol import walked
from service.vault.files import VaultFiles
from tests.conftest import e2e
from tests.polling import until


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

        async def unlisted() -> bool:
            return "F1/n001.md" not in await _all(client)

        await until(unlisted, "the note another program deleted left the listing")

        walked = len(walks)
        guard = vg.app.services.guard
        guard.reload(vg.app.services.settings)  # type: ignore[attr-defined]
        await _all(client)
        assert len(walks) == walked + 1, "the rules reloaded: walked again"


async def test_a_kept_walk_is_dropped_after_its_time(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walked, "KEEP_S", 0.01)
    async with e2e(make_vault({"a.md": "x\n"})) as (url, vg), Client(url, mode="legacy") as client:
        await client.list_resources()
        kept = vg.app.resources.walked._kept
        await until(lambda: not kept, "the kept walk dropped")  # the server runs on this loop


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_completions_walk_the_vault_once_for_many_keystrokes(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    root = make_vault({"Projects/Plan.md": "x\n", "Projects/Play.md": "x\n", "Notes/Plain.md": "x\n"})
    walks: list[str] = []
    real_walk = VaultFiles.walk

    def walk(self: VaultFiles, folder: Any, **kwargs: Any) -> Any:
        walks.append(folder.rel)
        return real_walk(self, folder, **kwargs)

    monkeypatch.setattr(VaultFiles, "walk", walk)
    ref = types.PromptReference(name="summarize_note")
    async with e2e(root) as (url, vg), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await vg.indexed()
        typed = [
            (await client.complete(ref, {"name": "path", "value": v})).completion.values for v in ["p", "pl", "notes/p"]
        ]
        assert typed[2] == ["Notes/Plain.md"] and "Projects/Play.md" in typed[1] and len(walks) == 1, (typed, walks)
        folders = await client.complete(types.PromptReference(name="review_folder"), {"name": "folder", "value": "pro"})
        assert folders.completion.values == ["Projects"] and len(walks) == 1
        await vg.ok("create_note", path="Projects/Planet", content="x\n")
        again = await client.complete(ref, {"name": "path", "value": "plan"})
        assert again.completion.values == ["Projects/Plan.md", "Projects/Planet.md"] and len(walks) == 2


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_a_vault_added_at_run_time_tells_its_subscribers(tmp_path: Path, make_vault: Callable[..., Path]) -> None:
    """A vault `reload_vault` adds once the server runs: its notes' subscribers hear of changes
    (before, only the vaults served at the start were listened to: a subscription to the new one
    never fired)."""
    main, extra = make_vault({"A.md": "# A\n"}, name="one"), make_vault({"Open.md": "# O\n"}, name="two")
    config = tmp_path / "vaultgate.toml"
    config.write_text(f'[[vaults]]\nid = "main"\npath = "{main}"\n', encoding="utf-8")
    updates: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            await updates.put(str(message.params.uri))

    async with e2e(config) as (url, vg), Client(url, mode="legacy", message_handler=on_message) as client:
        await client.list_resources()  # the MCP surfaces are built before the vault is added
        config.write_text(
            f'[[vaults]]\nid = "main"\npath = "{main}"\n[[vaults]]\nid = "extra"\npath = "{extra}"\n', encoding="utf-8"
        )
        assert (await vg.ok("reload_vault", apply=True))["applied"] == ["extra"]
        await client.subscribe_resource("vault://extra/Open.md")
        await vg.ok("append_note", vault="extra", path="Open", content="more\n")
        assert await asyncio.wait_for(updates.get(), 60) == "vault://extra/Open.md"


async def test_a_note_deleted_while_the_vault_is_walked_is_left_out(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note another program deletes between the folder's listing and the note's stat (or read)
    is left out of resources/list, completion and review_folder; before, the walk's `stat` raised
    and resources/list answered an internal error."""
    root = make_vault({"F/Gone.md": "x\n", "F/Kept.md": "x\n"})
    real_walk = VaultFiles.walk

    def walk(self: VaultFiles, folder: Any, **kwargs: Any) -> Any:
        for rel, entry in real_walk(self, folder, **kwargs):
            if rel == "F/Gone.md":
                (root / rel).unlink(missing_ok=True)  # after the listing, before the stat
            yield rel, entry

    monkeypatch.setattr(VaultFiles, "walk", walk)
    async with e2e(root) as (url, _vg), Client(url, mode="legacy") as client:
        assert [r.name for r in (await client.list_resources()).resources] == ["F/Kept.md"]
        (root / "F" / "Gone.md").write_text("x\n")
        review = await client.get_prompt("review_folder", {"folder": "F"})
        text = review.messages[0].content
        assert isinstance(text, types.TextContent) and "F/Kept.md" in text.text and "Gone" not in text.text
