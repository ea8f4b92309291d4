"""get_active_note while Obsidian shows a file that is no Markdown note (a canvas, a PDF, an
image), through the whole dispatch chain against the Local REST API stand-in
(tests/tools/bridges/standin.py, which models what the plugin does for such a file).

The plugin answers `GET /active/` as NoteJson through `getFileMetadataObject`, which first waits
up to 5 s for Obsidian's metadata of the file (`waitForFileCache(file, 5000)`,
src/vaultOperations.ts); Obsidian keeps metadata for Markdown files only, so for a canvas or a PDF
the answer comes only after that wait. Bounded by `timeout_s` (5 s by default) alone, the call
was `plugin_unreachable` (timeout, "Obsidian may be busy or closed; try again") every time such a
file was in focus. And the answer's `content` is the file read as text (`cachedRead`): a PDF's or
an image's bytes, which the tool returned as the note's text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tools.bridges.standin import Obsidian
from tests.tools.bridges.test_bridge_tools import FILES, api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too

CANVAS = '{"nodes": [], "edges": []}'


def _active(path: str, content: str) -> dict[str, object]:
    return {"path": path, "content": content, "frontmatter": {}, "tags": [], "stat": None}


async def test_a_canvas_in_focus_is_answered_after_the_plugins_metadata_wait(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    # the plugin's wait (1.5 s here) is longer than the bridge's timeout_s (1 s)
    obsidian = Obsidian(active=_active("Board.canvas", CANVAS), metadata_wait_s=1.5)
    async with bridged(make_vault, tmp_path, obsidian, timeout_s=1.0) as (vg, _):
        out = await vg.ok("get_active_note")
        assert out["active"] is True and out["path"] == "Board.canvas" and out["content"] == CANVAS, out


@pytest.mark.parametrize("path", ["Files/Scan.pdf", "Files/Photo.png"])
async def test_a_binary_file_in_focus_has_no_text(make_vault: Callable[..., Path], tmp_path: Path, path: str) -> None:
    garbled = "%PDF-1.7\n\ufffd\ufffd\x00\x01 binary"
    obsidian = Obsidian(active=_active(path, garbled), metadata_wait_s=0.0)
    async with bridged(make_vault, tmp_path, obsidian, files={**FILES, path: "x"}) as (vg, _):
        out = await vg.ok("get_active_note")
        assert out["active"] is True and out["path"] == path and out["content"] is None, out
