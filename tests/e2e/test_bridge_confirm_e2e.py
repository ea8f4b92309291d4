"""The bridge tools that a human approves on every call (execute_command, execute_template,
trigger_quickadd), asked through the client over real HTTP with the SDK client, against the
Local REST API stand-in (tests/tools/bridges/standin.py): a 2025-era client (`mode="legacy"`)
that declared elicitation is asked with `elicitation/create`, as for delete_note, rather than
answered `elicit_required`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from tests.conftest import e2e
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving

ENV = "VG_E2E_OBSIDIAN_KEY"
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("execute_command", {"command_id": "graph:open"}),
    ("trigger_quickadd", {"choice": "Log"}),
    ("execute_template", {"template": "Meeting", "folder": "Projects", "filename": "Kickoff"}),
]


def answering(action: str, asked: list[str]) -> Any:
    async def answer(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=action, content={"confirm": True} if action == "accept" else None)

    return answer


def bridged_vault(root: Path, url: str, fingerprint: str) -> dict[str, Any]:
    bridge = {
        "url": url,
        "api_key_env": ENV,
        "cert_fingerprint": fingerprint,
        "safe_commands": ["graph:open"],
        "probe_at_start": False,
    }
    return {"id": "main", "path": root, "bridge": bridge}


async def test_a_2025_era_client_is_asked_through_elicitation_for_each_bridge_call(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Templates/Meeting.md": "# Meeting\n", "Projects/Plan.md": "# Plan\n"})
    cert = make_cert(tmp_path / "tls")
    obsidian = Obsidian()
    asked: list[str] = []
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        async with (
            e2e(root, vaults=[vault]) as (mcp_url, _),
            Client(mcp_url, mode="legacy", elicitation_callback=answering("accept", asked)) as client,
        ):
            for n, (tool, args) in enumerate(CALLS, start=1):
                result = await client.call_tool(tool, args)
                assert not result.is_error, (tool, result.structured_content)
                assert len(asked) == n, tool  # asked once, through the client
    assert obsidian.executed == ["graph:open"]
    assert [run["choice"] for run in obsidian.quickadd_runs] == ["Log"]
    assert [made["filename"] for made in obsidian.created] == ["Kickoff"]
