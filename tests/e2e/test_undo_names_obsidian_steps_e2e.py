"""E2E (both protocol eras, SDK client over real HTTP, a human approving through the client) for
undo_last_plan of a plan whose steps acted in Obsidian (the Local REST API stand-in): the undo
restores what vaultgate wrote and names the command and template steps in `not_undone`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.e2e.test_bridge_confirm_e2e import ENV, answering, bridged_vault
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving

PLAN = {
    "goal": "log and open",
    "steps": [
        {"id": "note", "tool": "create_note", "args": {"path": "Log/Day.md", "content": "# Day\n"}},
        {"id": "cmd", "tool": "execute_command", "args": {"command_id": "graph:open"}},
        {"id": "tpl", "tool": "execute_template", "args": {"template": "Meeting", "folder": "Projects"}},
    ],
}


async def test_an_undo_names_the_steps_that_acted_in_obsidian(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
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
            Client(mcp_url, mode=mode, elicitation_callback=answering("accept", asked)) as client,  # type: ignore[arg-type]
        ):
            run = await ok(client, "execute_plan", plan=PLAN)
            assert run["status"] == "done" and obsidian.executed == ["graph:open"], run
            undone = await ok(client, "undo_last_plan")
            acted = [(i["step"], i["tool"]) for i in undone["not_undone"]]
            assert acted == [("cmd", "execute_command"), ("tpl", "execute_template")], undone
            assert "Log/Day.md" in undone["restored"] and not (root / "Log/Day.md").exists()
