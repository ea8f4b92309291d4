"""A vault whose `.obsidian` is a symlink to a folder outside it (settings shared between vaults, a
common setup): the server never reads or writes there, and the tools that would only read a
setting go on without it. Before, list_attachments, list_bookmarks, get_workspace and
list_recent_files answered path_invalid ('symlink leaves the vault') for the whole call: the
path was resolved before the guard that takes an unreadable settings file as absent."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import snapshot, started


async def test_settings_linked_out_of_the_vault_are_absent_not_an_error(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Home.md": "# Home\n![[pic.png]]\n", "pic.png": b"\x89PNG\r\n"})
    shared = root.parent / "shared-obsidian"
    shared.mkdir()
    (shared / "app.json").write_text(json.dumps({"attachmentFolderPath": "../outside"}), encoding="utf-8")
    (shared / "bookmarks.json").write_text(json.dumps({"items": [{"type": "file", "path": "Secret.md"}]}))
    (shared / "workspace.json").write_text(json.dumps({"lastOpenFiles": ["Secret.md"]}), encoding="utf-8")
    (root / ".obsidian").symlink_to(shared, target_is_directory=True)
    before = snapshot(shared)
    async with started(root) as vg:
        await vg.indexed()
        attachments = await vg.ok("list_attachments")
        assert [item["path"] for item in attachments["items"]] == ["pic.png"]
        assert (await vg.ok("list_bookmarks"))["items"] == []
        assert (await vg.ok("get_workspace"))["found"] is False
        assert (await vg.ok("list_recent_files"))["items"] == []
        error = await vg.err("add_bookmark", "path_invalid", type="file", path="Home.md")
        assert "Secret" not in json.dumps(error)
    assert snapshot(shared) == before
