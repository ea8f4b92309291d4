"""E2E (both protocol eras, SDK client over real HTTP) for get_active_note of a note longer than
an answer may be, against the Local REST API stand-in: the overflow's hint names include_content
and read_note (not only an operator's setting), and include_content: false answers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.e2e.test_bridge_confirm_e2e import ENV, bridged_vault
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving


async def test_a_long_active_note_names_what_the_agent_can_ask(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Welcome.md": "# Welcome\n"})
    cert = make_cert(tmp_path / "tls")
    text = "# Long\n\n" + "A line of the long note that Obsidian shows.\n" * 50_000  # ~2.3 MB
    obsidian = Obsidian(active={"path": "Long.md", "content": text, "frontmatter": {}, "tags": [], "stat": None})
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        async with e2e(root, vaults=[vault]) as (mcp_url, _), Client(mcp_url, mode=mode) as client:  # type: ignore[arg-type]
            result = await client.call_tool("get_active_note", {})
            assert result.is_error and result.structured_content is not None
            error = result.structured_content["error"]
            assert error["code"] == "overflow" and "include_content: false" in error["hint"], error
            small = await ok(client, "get_active_note", include_content=False)
            assert small["path"] == "Long.md" and not small.get("content"), small
