"""E2E (both protocol eras, SDK client over real HTTP) for a plan with open_in_obsidian, against
the Local REST API stand-in: validate_plan opens nothing in Obsidian, execute_plan opens the note
once (its check opened it too, and validate_plan before it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.e2e.test_bridge_confirm_e2e import ENV, bridged_vault
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving

PLAN = {"goal": "show", "steps": [{"id": "open", "tool": "open_in_obsidian", "args": {"path": "Index"}}]}


async def test_a_plans_check_opens_nothing_in_obsidian(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Index.md": "# Index\n"})
    cert = make_cert(tmp_path / "tls")
    obsidian = Obsidian()
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        async with e2e(root, vaults=[vault]) as (mcp_url, _), Client(mcp_url, mode=mode) as client:  # type: ignore[arg-type]
            assert (await ok(client, "validate_plan", plan=PLAN))["valid"] is True
            assert obsidian.opened == []
            assert (await ok(client, "execute_plan", plan=PLAN))["status"] == "done"
    assert [path for path, _ in obsidian.opened] == ["Index.md"]
