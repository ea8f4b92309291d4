"""E2E (both protocol eras, SDK client over real HTTP) for get_active_note while Obsidian shows a
canvas or a PDF, against the Local REST API stand-in (tests/tools/bridges/standin.py), which
answers such a file only after the plugin's wait for metadata Obsidian never makes for it (1.5 s
here, past the bridge's timeout_s of 1 s): the canvas is answered with its text, the PDF without
its bytes as text (content null)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.e2e.test_bridge_confirm_e2e import ENV, bridged_vault
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving

CANVAS = '{"nodes": [], "edges": []}'


async def test_get_active_note_of_a_canvas_and_of_a_pdf(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Board.canvas": CANVAS, "Files/Scan.pdf": "%PDF-1.7\n"})
    cert = make_cert(tmp_path / "tls")
    obsidian = Obsidian(metadata_wait_s=1.5)
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        vault["bridge"]["timeout_s"] = 1.0
        async with e2e(root, vaults=[vault]) as (mcp_url, _), Client(mcp_url, mode=mode) as client:  # type: ignore[arg-type]
            obsidian.active = {"path": "Board.canvas", "content": CANVAS, "frontmatter": {}, "tags": [], "stat": None}
            canvas = await ok(client, "get_active_note")
            assert canvas["path"] == "Board.canvas" and canvas["content"] == CANVAS, canvas
            pdf = {"path": "Files/Scan.pdf", "content": "%PDF-1.7\n\ufffd\ufffd", "frontmatter": {}, "tags": []}
            obsidian.active = {**pdf, "stat": None}
            scan = await ok(client, "get_active_note")
            assert scan["active"] is True and scan["path"] == "Files/Scan.pdf" and scan["content"] is None, scan
