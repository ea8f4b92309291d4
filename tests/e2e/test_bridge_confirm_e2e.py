"""The bridge tools that a human approves on every call (execute_command, execute_template,
trigger_quickadd), asked through the client over real HTTP with the SDK client, against the
Local REST API stand-in (tests/tools/bridges/standin.py):

- a 2025-era client (`mode="legacy"`) that declared elicitation is asked with
  `elicitation/create`, as for delete_note, rather than answered `elicit_required`;
- a 2026-07-28 client whose human declines a call is answered `forbidden` after one question,
  also when the same call was approved a moment earlier (in the same second of the clock)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
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


def bridged_vault(root: Path, url: str, fingerprint: str, vault_id: str = "main") -> dict[str, Any]:
    bridge = {
        "url": url,
        "api_key_env": ENV,
        "cert_fingerprint": fingerprint,
        "safe_commands": ["graph:open"],
        "probe_at_start": False,
    }
    return {"id": vault_id, "path": root, "bridge": bridge}


async def test_a_2025_era_client_is_asked_through_elicitation_for_each_bridge_call(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Templates/Meeting.md": "# Meeting\n", "Projects/Kickoff.md": "# Kept\n"})
    dry_root = make_vault({"Templates/Meeting.md": "# Meeting\n", "Projects/Kickoff.md": "# Kept\n"})
    cert = make_cert(tmp_path / "tls")
    obsidian = Obsidian(vault_root=root)  # Templater's notes made in the vault as Obsidian names them
    asked: list[str] = []
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        dry = {**bridged_vault(dry_root, url, cert.fingerprint, "dry"), "write_mode": "dry-run"}
        async with (
            e2e(root, vaults=[vault, dry]) as (mcp_url, _),
            Client(mcp_url, mode="legacy", elicitation_callback=answering("accept", asked)) as client,
        ):
            for n, (tool, args) in enumerate(CALLS, start=1):
                result = await client.call_tool(tool, args)
                assert not result.is_error, (tool, result.structured_content)
                assert len(asked) == n, tool  # asked once, through the client
            # the human is shown the template file and the note as Obsidian will name it (B3 s85)
            assert tool == "execute_template"  # the last of CALLS
            made = result.structured_content or {}
            assert made["path"] == "Projects/Kickoff 1.md" and made["template"] == "Templates/Meeting.md", made
            assert "runs the template Templates/Meeting.md" in asked[-1], asked[-1]
            assert "creates the note Projects/Kickoff 1.md" in asked[-1], asked[-1]
            assert "A note Projects/Kickoff.md exists already" in asked[-1], asked[-1]
            # a name Obsidian cannot make or link: refused with its hint, nobody asked, nothing sent
            refused = await client.call_tool("execute_template", {"template": "Meeting", "filename": "Time: 10"})
            error = (refused.structured_content or {}).get("error") or {}
            assert refused.is_error and error.get("code") == "path_invalid" and error.get("hint"), error
            assert len(asked) == len(CALLS)
            # a dry-run vault's preview says what the confirmation says; nobody asked, nothing sent (B4 s85)
            args = {"template": "Meeting", "folder": "Projects", "filename": "Kickoff", "vault": "dry"}
            preview = (await client.call_tool("execute_template", args)).structured_content or {}
            assert preview.get("dry_run") is True, preview
            assert "runs the template Templates/Meeting.md" in preview["summary"], preview
            assert "creates the note Projects/Kickoff 1.md" in preview["summary"], preview
            assert len(asked) == len(CALLS)
    assert (root / "Projects/Kickoff.md").read_text() == "# Kept\n"
    assert obsidian.executed == ["graph:open"]
    assert [run["choice"] for run in obsidian.quickadd_runs] == ["Log"]
    assert [made["filename"] for made in obsidian.created] == ["Kickoff"]
    assert not (dry_root / "Projects/Kickoff 1.md").exists()


@pytest.mark.parametrize(("tool", "args"), CALLS[:2])
async def test_a_decline_after_an_approval_of_the_same_call_is_forbidden_after_one_question(
    make_vault: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tool: str,
    args: dict[str, Any],
) -> None:
    monkeypatch.setenv(ENV, KEY)
    # both questions in the same second of the confirmation layer's clock (as two quick calls are)
    now = time.time()
    monkeypatch.setattr("service.dispatch.confirm.time", SimpleNamespace(time=lambda: now))
    root = make_vault({"Projects/Plan.md": "# Plan\n"})
    cert = make_cert(tmp_path / "tls")
    obsidian = Obsidian()
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        async with e2e(root, vaults=[vault], throttle={"enabled": False}) as (mcp_url, _):
            approved: list[str] = []
            async with Client(mcp_url, elicitation_callback=answering("accept", approved)) as client:
                first = await client.call_tool(tool, args)
            assert not first.is_error and len(approved) == 1
            declined: list[str] = []
            async with Client(mcp_url, elicitation_callback=answering("decline", declined)) as client:
                second = await client.call_tool(tool, args)
            assert second.is_error and second.structured_content is not None
            error = second.structured_content["error"]
            assert error["code"] == "forbidden" and error["details"]["reason"] == "declined"
            assert len(declined) == 1
