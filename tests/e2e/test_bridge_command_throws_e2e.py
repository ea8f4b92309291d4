"""A command that throws in Obsidian, end to end (real uvicorn, the SDK client, both eras, the human
approving through the client) against the Local REST API stand-in: the plugin's 500 to
`POST /commands/{id}/` is `plugin_incompatible`, `reason: plugin_failed`, not retryable (it was
`plugin_unreachable`, retryable, and a retry ran the command again)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.test_bridge_confirm_e2e import ENV, answering, bridged_vault
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving


async def test_a_command_that_throws_over_http(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Projects/Plan.md": "# Plan\n"})
    cert = make_cert(tmp_path / "tls")
    obsidian = Obsidian(throwing={"graph:open"})
    asked: list[str] = []
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        async with (
            e2e(root, vaults=[vault]) as (mcp_url, _),
            Client(mcp_url, mode=mode, elicitation_callback=answering("accept", asked)) as client,  # type: ignore[arg-type]
        ):
            result = await client.call_tool("execute_command", {"command_id": "graph:open"})
            assert result.is_error and result.structured_content is not None, result
            error = result.structured_content["error"]
            assert error["code"] == "plugin_incompatible" and error["retryable"] is False, error
            assert error["details"]["reason"] == "plugin_failed", error
    assert obsidian.executed == ["graph:open"] and len(asked) == 1
