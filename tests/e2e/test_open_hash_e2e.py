"""E2E (both protocol eras, SDK client over real HTTP) for open_in_obsidian of a file whose path
holds '#': refused with `validation_error` (`hash_in_path`) and nothing sent to the Local REST API
stand-in (tests/tools/bridges/standin.py), whose real plugin would read the path as link text and
open, and create, another note; the same vault's other notes still open."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.e2e.test_bridge_confirm_e2e import ENV, bridged_vault
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving


async def test_open_in_obsidian_refuses_a_path_with_a_hash_and_sends_nothing(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Notes/C# tips.md": "# C#\n", "Notes/Plan.md": "# Plan\n"})
    cert = make_cert(tmp_path / "tls")
    obsidian = Obsidian()
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        async with e2e(root, vaults=[vault]) as (mcp_url, _), Client(mcp_url, mode=mode) as client:  # type: ignore[arg-type]
            refused = await error(client, "open_in_obsidian", path="Notes/C# tips.md")
            assert refused["code"] == "validation_error" and refused["details"]["reason"] == "hash_in_path"
            assert obsidian.opened == []
            assert (await ok(client, "open_in_obsidian", path="Plan"))["path"] == "Notes/Plan.md"
    assert [opened for opened, _ in obsidian.opened] == ["Notes/Plan.md"]
