"""A bridge call that cannot run asks no human, over real HTTP with the SDK client (both protocol
eras) against the Local REST API stand-in (tests/tools/bridges/standin.py): execute_command of a
safe_commands id the running Obsidian does not have, trigger_quickadd of a Multi, are refused
(validation_error) before any confirmation is asked for (see
tests/tools/bridges/test_unrunnable_calls_asked_of_no_one.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving

ENV = "VG_E2E_OBSIDIAN_KEY"


async def test_unrunnable_bridge_calls_are_refused_before_asking(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Inbox/Idea.md": "# Idea\n"})
    cert = make_cert(tmp_path / "tls")
    obsidian = Obsidian()
    async with serving(obsidian, cert) as url:
        bridge = {
            "url": url,
            "api_key_env": ENV,
            "cert_fingerprint": cert.fingerprint,
            "safe_commands": ["editor:save-file", "plugin:gone"],
            "probe_at_start": False,
        }
        vault = {"id": "main", "path": root, "bridge": bridge}
        async with e2e(root, vaults=[vault]) as (mcp_url, h), Client(mcp_url, mode=mode) as client:  # type: ignore[arg-type]
            gone = await error(client, "execute_command", command_id="plugin:gone")
            assert gone["code"] == "validation_error" and gone["details"]["reason"] == "unknown_command"
            group = await error(client, "trigger_quickadd", choice="Tools")
            assert group["code"] == "validation_error" and group["details"]["reason"] == "choice_not_found"
            assert await h.app.state.fetchall("SELECT tool FROM confirmation_requests", []) == []
            asked = await error(client, "trigger_quickadd", choice="Log")  # a runnable choice still asks
            assert asked["code"] == "elicit_required"
    assert obsidian.executed == [] and obsidian.quickadd_runs == []
