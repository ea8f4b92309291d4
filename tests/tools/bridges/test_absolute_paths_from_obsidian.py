"""A path Obsidian reports is a vault path only as Obsidian writes one: without a leading '/'.
An absolute path from the plugin ('/etc/passwd') or in workspace.json was taken as the vault path
'etc/passwd' (the helper stripped the slash before the path rules ran): get_active_note answered
active: true for it, and list_recent_files listed it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started
from tests.tools.bridges.standin import KEY, Obsidian
from tests.tools.bridges.test_bridge_tools import ACTIVE, ENV, bridged


async def test_an_absolute_active_path_is_no_active_note(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    absolute = dict(ACTIVE, path="/etc/passwd", content="root:x:0:0\n")
    async with bridged(make_vault, tmp_path, Obsidian(active=absolute)) as (vg, _):
        out = await vg.ok("get_active_note")
    assert out["active"] is False and out["path"] is None and out["content"] is None


async def test_an_absolute_recent_file_is_not_listed(make_vault: Callable[..., Path]) -> None:
    workspace = {"main": {"type": "split"}, "lastOpenFiles": ["/etc/passwd", "/Home.md", "Home.md"]}
    root = make_vault({"Home.md": "# Home\n", ".obsidian/workspace.json": json.dumps(workspace)})
    async with started(root) as vg:
        recent = (await vg.ok("list_recent_files"))["items"]
    assert [i["path"] for i in recent] == ["Home.md"]
