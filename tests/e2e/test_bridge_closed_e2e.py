"""Obsidian closed, over real HTTP with the SDK client, with the certificate pinned by its
fingerprint as docs/bridges.md sets it up: each bridge tool is `plugin_unreachable` naming the
bridge (`details.url`) with a hint (execute_template too, before anyone is asked), and the
vault's other tools answer as before (B2 s84)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.tools.bridges.standin import KEY, closed_port

ENV = "VG_E2E_OBSIDIAN_KEY"


async def test_obsidian_closed_is_a_clear_error_and_the_rest_still_works(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Index.md": "# Index\n", "Templates/Meeting.md": "# Meeting\n"})
    url = f"https://127.0.0.1:{closed_port()}"
    bridge = {"url": url, "api_key_env": ENV, "cert_fingerprint": "ab" * 32, "probe_at_start": False}
    async with (
        e2e(root, vaults=[{"id": "main", "path": root, "bridge": bridge}]) as (mcp_url, _),
        Client(mcp_url) as client,
    ):
        for tool, args in [("get_active_note", {}), ("list_commands", {}), ("open_in_obsidian", {"path": "Index"})]:
            err = await error(client, tool, args)
            assert err["code"] == "plugin_unreachable" and err["retryable"] is True, (tool, err)
            assert err["details"]["url"] == url and err["hint"], (tool, err)
        # a call a human confirms is answered so before anyone is asked
        made = await error(client, "execute_template", template="Meeting", folder="Projects")
        assert made["code"] == "plugin_unreachable", made
        assert (await ok(client, "read_note", path="Index"))["content"].startswith("# Index")
