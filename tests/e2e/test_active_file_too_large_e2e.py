"""E2E (both protocol eras, SDK client over real HTTP) for get_active_note while Obsidian shows a
file whose NoteJson is too large for the bridge's bound (lowered here to keep the answer small),
against the Local REST API stand-in: the file by the path the plugin names in Content-Location,
kind video, no content (it failed with plugin_incompatible, answer_too_large)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.e2e.test_bridge_confirm_e2e import ENV, bridged_vault
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving


async def test_get_active_note_of_a_large_video(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    monkeypatch.setattr("service.bridges.rest_api.MAX_BODY", 4096)
    root = make_vault({"Media/Talk.mp4": b"\x00\x01" * 10, "Home.md": "# Home\n"})
    cert = make_cert(tmp_path / "tls")
    active = {"path": "Media/Talk.mp4", "content": "\ufffd" * 5000, "frontmatter": {}, "tags": [], "stat": None}
    obsidian = Obsidian(active=active, metadata_wait_s=0.0)
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        async with e2e(root, vaults=[vault]) as (mcp_url, _), Client(mcp_url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "get_active_note")
            assert (out["active"], out["path"], out["kind"], out["content"]) == (True, "Media/Talk.mp4", "video", None)
