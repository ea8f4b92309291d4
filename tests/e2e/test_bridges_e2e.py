"""The bridge tools over real HTTP with the SDK client, in both protocol eras, against a stand-in
for Obsidian's Local REST API plugin on loopback HTTPS with a self-signed certificate
(tests/tools/bridges/standin.py, which follows the plugin's published OpenAPI): the probe in
server_health, each tool, execute_command waiting for a human, then Obsidian closing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving

ENV = "VG_E2E_OBSIDIAN_KEY"


async def test_bridge_tools_over_http(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Inbox/Idea.md": "# Idea\n"})
    cert = make_cert(tmp_path / "tls")
    obsidian = Obsidian(
        active={"path": "Inbox/Idea.md", "content": "# Idea\n", "frontmatter": {}, "tags": [], "stat": None}
    )
    async with serving(obsidian, cert) as url:
        bridge = {
            "url": url,
            "api_key_env": ENV,
            "cert_fingerprint": cert.fingerprint,
            "safe_commands": ["editor:save-file"],
            "probe_at_start": False,
        }
        vault = {"id": "main", "path": root, "bridge": bridge}
        async with e2e(root, vaults=[vault]) as (mcp_url, _), Client(mcp_url, mode=mode) as client:  # type: ignore[arg-type]
            health = await ok(client, "server_health", probe_bridges=True)
            assert health["bridges"][0]["state"] == "ready" and health["bridges"][0]["companion"] is True
            assert (await ok(client, "open_in_obsidian", path="Idea"))["path"] == "Inbox/Idea.md"
            active = await ok(client, "get_active_note")
            assert active["path"] == "Inbox/Idea.md" and active["content"] == "# Idea\n"
            assert (await ok(client, "list_commands", query="save"))["items"][0]["safe"] is True
            asked = await error(client, "execute_command", command_id="editor:save-file")
            assert asked["code"] == "elicit_required"
            refused = await error(client, "execute_command", command_id="app:delete-file")
            assert refused["code"] == "forbidden" and refused["details"]["reason"] == "not_in_safe_commands"
            assert obsidian.executed == []
    # the stand-in has stopped: Obsidian is closed
    async with e2e(root, vaults=[vault]) as (mcp_url, _), Client(mcp_url, mode=mode) as client:  # type: ignore[arg-type]
        closed = await error(client, "get_active_note")
        assert closed["code"] == "plugin_unreachable" and closed["retryable"] is True
