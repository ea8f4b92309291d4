"""execute_command, trigger_quickadd and execute_template ask no human for a call that cannot run: an id the running
Obsidian does not have, a QuickAdd choice that is a Multi (a group) or does not exist, are refused
by the precheck — before anything is claimed or anyone is asked — as the plugin would refuse them.
Found by U8 (s75) driving the server against the Local REST API stand-in: trigger_quickadd 'Tools'
(a Multi) answered elicit_required, and once the human had confirmed it, validation_error
(choice_not_found); so did execute_command of a safe_commands id Obsidian does not know
(unknown_command). Through the whole dispatch chain against tests/tools/bridges/standin.py.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started
from tests.tools.bridges.standin import Obsidian, closed_port, make_cert, serving
from tests.tools.bridges.test_bridge_tools import ENV, FILES, api_key

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too

SAFE = ["editor:save-file", "plugin:gone"]  # the second: a plugin's command since disabled


@contextlib.asynccontextmanager
async def vault(make_vault: Callable[..., Path], tmp_path: Path) -> AsyncIterator[tuple[Harness, Obsidian]]:
    obsidian = Obsidian()
    cert = make_cert(tmp_path / "tls")
    root = make_vault(FILES)
    async with serving(obsidian, cert) as url:
        bridge = {
            "url": url,
            "api_key_env": ENV,
            "probe_at_start": False,
            "cert_fingerprint": cert.fingerprint,
            "safe_commands": SAFE,
        }
        async with started(root, vaults=[{"id": "main", "path": root, "bridge": bridge}]) as vg:
            yield vg, obsidian


async def asked(vg: Harness) -> list[Any]:
    return await vg.app.state.fetchall("SELECT tool FROM confirmation_requests", [])


async def test_an_unknown_command_is_refused_before_anyone_is_asked(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        err = await vg.err("execute_command", "validation_error", command_id="plugin:gone")
        assert err["details"]["reason"] == "unknown_command" and err["details"]["command_id"] == "plugin:gone"
        assert await asked(vg) == [] and obsidian.executed == []
        # a command Obsidian has still asks the human, and runs once confirmed
        assert (await vg.confirmed("execute_command", command_id="editor:save-file"))["executed"] is True
        assert obsidian.executed == ["editor:save-file"]


async def test_a_multi_or_unknown_quickadd_choice_is_refused_before_anyone_is_asked(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        multi = await vg.err("trigger_quickadd", "validation_error", choice="Tools")
        assert multi["details"]["reason"] == "choice_not_found" and multi["details"]["multi"] is True
        unknown = await vg.err("trigger_quickadd", "validation_error", choice="log")  # QuickAdd's names: exact
        assert unknown["details"]["reason"] == "choice_not_found" and unknown["details"]["multi"] is False
        assert await asked(vg) == [] and obsidian.quickadd_runs == []
        ran = await vg.confirmed("trigger_quickadd", choice="New project", variables={"name": "Zoë"})
        assert ran["executed"] is True
        assert obsidian.quickadd_runs == [{"choice": "New project", "variables": {"name": "Zoë"}}]


async def test_obsidian_closed_is_answered_before_anyone_is_asked(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    cert = make_cert(tmp_path / "tls")
    root = make_vault(FILES)
    bridge = {
        "url": f"https://127.0.0.1:{closed_port()}",
        "api_key_env": ENV,
        "probe_at_start": False,
        "cert_fingerprint": cert.fingerprint,
        "safe_commands": SAFE,
    }
    async with started(root, vaults=[{"id": "main", "path": root, "bridge": bridge}]) as vg:
        await vg.err("execute_command", "plugin_unreachable", command_id="editor:save-file")
        await vg.err("trigger_quickadd", "plugin_unreachable", choice="Log")
        # execute_template too: it asked the human, then failed (B2 s84)
        await vg.err("execute_template", "plugin_unreachable", template="Meeting", folder="Projects")
        assert await asked(vg) == []


async def test_templater_not_enabled_is_answered_before_anyone_is_asked(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """Templater disabled in Obsidian: execute_template asked the human, then answered
    plugin_missing once confirmed (B2 s84). Its precheck reads Templater's templates first now."""
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        obsidian.templates = None  # the companion finds no Templater
        err = await vg.err("execute_template", "plugin_missing", template="Meeting", folder="Projects")
        assert err["details"]["plugin"] == "templater-obsidian", err
        assert await asked(vg) == [] and obsidian.created == []
        obsidian.templates = ["Templates/Meeting.md"]  # enabled again: asked, and made once confirmed
        made = await vg.confirmed("execute_template", template="Meeting", folder="Projects", filename="Kickoff")
        assert made["path"] == "Projects/Kickoff.md" and len(obsidian.created) == 1
