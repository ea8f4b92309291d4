"""E2E (both protocol eras, SDK client over real HTTP, a human approving through elicitation) for
execute_template without a folder: the note is made in the vault's root, not in the folder of the
note open in Obsidian (Obsidian set to put new notes in the current note's folder; Templater
reads the empty folder the tool sent as none given), and a name given with its '.md' makes no
'.md.md' note. Against the Local REST API stand-in with the
companion's routes (tests/tools/bridges/standin.py, modelling Templater's folder handling)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.e2e.test_bridge_confirm_e2e import ENV, answering, bridged_vault
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving


async def test_execute_template_without_a_folder_makes_the_note_in_the_root(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Templates/Meeting.md": "# Meeting\n", "Projects/Plan.md": "# Plan\n"})
    cert = make_cert(tmp_path / "tls")
    active = {"path": "Projects/Plan.md", "content": "# Plan\n", "frontmatter": {}, "tags": [], "stat": None}
    obsidian = Obsidian(active=active, new_file_location="current")
    asked: list[str] = []
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        async with (
            e2e(root, vaults=[vault]) as (mcp_url, _),
            Client(mcp_url, mode=mode, elicitation_callback=answering("accept", asked)) as client,  # type: ignore[arg-type]
        ):
            out = await ok(client, "execute_template", template="Meeting", filename="Kickoff")
            assert out["path"] == "Kickoff.md", out
            assert len(asked) == 1
            # a name given with its '.md' (Templater adds the extension itself)
            named = await ok(client, "execute_template", template="Meeting", folder="Projects", filename="Agenda.md")
            assert named["path"] == "Projects/Agenda.md", named
    assert [obsidian.templater_path(made) for made in obsidian.created] == ["Kickoff.md", "Projects/Agenda.md"]
