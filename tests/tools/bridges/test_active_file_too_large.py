"""get_active_note while Obsidian shows a file too large for the plugin's answer. The plugin's
NoteJson holds the file's bytes read as text (`cachedRead`), so a large video or PDF in focus (a
40 MB recording is a JSON answer past the bridge's 64 MiB bound, each byte that is no UTF-8 a
three-byte U+FFFD) made get_active_note fail with `plugin_incompatible` (`answer_too_large`)
whenever it was open. Found running the bridge's routes against the plugin's source (B3 s78): the
plugin names the active file in `Content-Location` (`activeFileGet`: `encodeURI(file.path)`). Now
the file is answered by that path (checked as any other: its kind, no content), and a too-large
answer of another route still fails. The bound is lowered here to keep the test small."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tools.bridges.standin import Obsidian
from tests.tools.bridges.test_bridge_tools import FILES, api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too

VIDEO = "Media/Talk vidéo #2.mp4"


async def test_a_file_too_large_for_the_answer_is_its_path(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("service.bridges.rest_api.MAX_BODY", 4096)
    active = {"path": VIDEO, "content": "\ufffd" * 5000, "frontmatter": {}, "tags": [], "stat": None}
    obsidian = Obsidian(active=active, metadata_wait_s=0.0)
    async with bridged(make_vault, tmp_path, obsidian, files={**FILES, VIDEO: b"\x00\x01" * 10}) as (vg, _):
        out = await vg.ok("get_active_note")
        assert (out["active"], out["path"], out["kind"], out["content"]) == (True, VIDEO, "video", None), out
        assert out["obsidian_url"] and out["title"] == "Talk vidéo #2", out
        obsidian.commands = [{"id": f"cmd:{i}", "name": "x" * 100} for i in range(100)]  # another route: still refused
        err = await vg.err("list_commands", "plugin_incompatible")
        assert err["details"]["reason"] == "answer_too_large", err
