"""E2E (both protocol eras, SDK client over real HTTP, a human approving through the client): a plan
that makes a note from a Templater template (the Local REST API stand-in makes it in the vault as
Obsidian names it), patches it by its path and moves it by its bare name runs as validate_plan
foresaw it, what the human approved names the note, and undo_last_plan removes the note and the
folder made for it: the vault is as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import ok
from tests.e2e.test_bridge_confirm_e2e import ENV, answering, bridged_vault
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving

PLAN = {
    "goal": "a meeting note, filed",
    "steps": [
        {
            "id": "tpl",
            "tool": "execute_template",
            "args": {"template": "Meeting", "folder": "Meetings/2026", "filename": "Kickoff"},
        },
        {
            "id": "agenda",
            "tool": "patch_note",
            "args": {"path": "Meetings/2026/Kickoff 1", "heading": "Meeting", "content": "- agenda"},
        },
        {"id": "file", "tool": "move_note", "args": {"path": "Kickoff 1", "new_path": "Archive/"}},
    ],
}


async def test_a_plan_uses_the_note_its_template_step_made_and_its_undo_removes_it(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Templates/Meeting.md": "# Meeting\n", "Meetings/2026/Kickoff.md": "# Kept\n"})
    cert = make_cert(tmp_path / "tls")
    obsidian = Obsidian(vault_root=root)
    asked: list[str] = []
    before = snapshot(root)
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        async with (
            e2e(root, vaults=[vault]) as (mcp_url, _),
            Client(mcp_url, mode=mode, elicitation_callback=answering("accept", asked)) as client,  # type: ignore[arg-type]
        ):
            checked = await ok(client, "validate_plan", plan=PLAN)
            assert checked["valid"], checked["problems"]
            assert checked["effects"]["files_created"] == ["Archive/Kickoff 1.md"], checked["effects"]
            run = await ok(client, "execute_plan", plan=PLAN)
            assert run["status"] == "done", run
            assert "Archive/Kickoff 1.md" in asked[-1] and "Meetings/2026/Kickoff 1.md" in asked[-1], asked[-1]
            after = snapshot(root)
            new_files = sorted(p for p in set(after) - set(before) if not p.endswith("/"))
            assert new_files == checked["effects"]["files_created"]  # what was foreseen is what ran
            assert (root / "Archive/Kickoff 1.md").read_text() == "# Meeting\n- agenda\n"
            assert (root / "Meetings/2026/Kickoff.md").read_text() == "# Kept\n"
            undone = await ok(client, "undo_last_plan")
            assert "Meetings/2026/Kickoff 1.md" in undone["restored"], undone
    assert snapshot(root) == before
    assert [made["filename"] for made in obsidian.created] == ["Kickoff"]
