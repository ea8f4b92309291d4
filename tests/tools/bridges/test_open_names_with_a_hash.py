"""open_in_obsidian of a file whose path holds '#' sends nothing and says why, through the whole
dispatch chain against the Local REST API stand-in (tests/tools/bridges/standin.py).

The plugin's `POST /open/{path}` hands the path to Obsidian's `workspace.openLinkText(path, "/",
newLeaf)` (src/vaultOperations.ts `openVaultFile`), which reads it as link text: what follows the
first '#' is a heading. So `Notes/C# tips.md` opened `Notes/C`, a note that does not exist, and
Obsidian created it (an unresolved link opened is a note made) — the tool promises it never
creates a note. There is no escape for '#' in link text, so such a file cannot be opened through
the plugin: the call is refused before anything is sent (`validation_error`,
`details.reason: hash_in_path`). A note address with a heading (`Plan#Goals`) still opens the note."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tools.bridges.test_bridge_tools import FILES, api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too

HASHED = {**FILES, "Notes/C# tips.md": "# C#\n", "Issue #42/Board.canvas": '{"nodes": [], "edges": []}'}


@pytest.mark.parametrize("path", ["Notes/C# tips.md", "Issue #42/Board.canvas"])
async def test_a_file_whose_path_holds_a_hash_is_refused_before_anything_is_sent(
    make_vault: Callable[..., Path], tmp_path: Path, path: str
) -> None:
    async with bridged(make_vault, tmp_path, files=HASHED) as (vg, obsidian):
        err = await vg.err("open_in_obsidian", "validation_error", path=path)
        assert err["details"]["reason"] == "hash_in_path" and err["details"]["path"] == path, err
        assert err["retryable"] is False
        assert obsidian.sent == [] and obsidian.opened == []


async def test_a_note_address_with_a_heading_still_opens_the_note(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, files={**HASHED, "Plan.md": "# Plan\n## Goals\n"}) as (vg, obsidian):
        out = await vg.ok("open_in_obsidian", path="Plan#Goals")
        assert out["path"] == "Plan.md"
    assert [opened for opened, _ in obsidian.opened] == ["Plan.md"]
