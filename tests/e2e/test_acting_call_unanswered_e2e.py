"""E2E (both protocol eras, SDK client over real HTTP, the human approving through elicitation)
for trigger_quickadd whose QuickAdd choice waits on a prompt in Obsidian past the bridge's
timeout_s: `plugin_unreachable` with `retryable: false` and `details.may_have_run`, not an
invitation to run the choice again; against the Local REST API stand-in
(tests/tools/bridges/standin.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error
from tests.e2e.test_bridge_confirm_e2e import ENV, answering, bridged_vault
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving


async def test_a_quickadd_choice_waiting_on_a_prompt_is_not_retryable(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Home.md": "# Home\n"})
    cert = make_cert(tmp_path / "tls")
    obsidian = Obsidian(quickadd_prompt_s=3.0)
    asked: list[str] = []
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        vault["bridge"]["timeout_s"] = 1.0
        async with (
            e2e(root, vaults=[vault]) as (mcp_url, _),
            Client(mcp_url, mode=mode, elicitation_callback=answering("accept", asked)) as client,  # type: ignore[arg-type]
        ):
            err = await error(client, "trigger_quickadd", choice="Log")
            assert err["code"] == "plugin_unreachable" and err["retryable"] is False, err
            assert err["details"]["may_have_run"] is True and len(asked) == 1
    assert [run["choice"] for run in obsidian.quickadd_runs] == ["Log"]
