"""The bridge tools' refusals that come before anything runs — no bridge (`plugin_missing`), a
command id not in `safe_commands` (`forbidden`), a template the caller may not read or a folder it
may not write (`acl_denied`), a folder outside the vault (`path_invalid`) — are answered in a
dry-run vault's preview and by validate_plan/execute_plan as the call answers them (each tool's
`static_check`), through the whole dispatch chain against the Local REST API stand-in
(tests/tools/bridges/standin.py). Before, a dry-run vault previewed such calls as if they would
run, and validate_plan called such a plan valid, then execute_plan asked a human to approve it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started
from tests.tools.bridges.standin import Obsidian, make_cert, serving
from tests.tools.bridges.test_bridge_tools import ENV, FILES, api_key

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too

SAFE = ["editor:save-file"]
ACL = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}


@contextlib.asynccontextmanager
async def vault(
    make_vault: Callable[..., Path], tmp_path: Path, *, write_mode: str = "allow", bridge: bool = True
) -> AsyncIterator[tuple[Harness, Obsidian]]:
    obsidian = Obsidian()
    cert = make_cert(tmp_path / "tls")
    root = make_vault(FILES)
    async with serving(obsidian, cert) as url:
        config: dict[str, Any] = {"id": "main", "path": root, "acl": ACL, "write_mode": write_mode}
        if bridge:
            config["bridge"] = {
                "url": url,
                "api_key_env": ENV,
                "probe_at_start": False,
                "cert_fingerprint": cert.fingerprint,
                "safe_commands": SAFE,
            }
        async with started(root, vaults=[config]) as vg:
            yield vg, obsidian


async def asked(vg: Harness) -> list[Any]:
    return await vg.app.state.fetchall("SELECT tool FROM confirmation_requests", [])


async def test_a_dry_run_preview_refuses_what_the_bridge_call_refuses(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path, write_mode="dry-run") as (vg, obsidian):
        err = await vg.err("execute_command", "forbidden", command_id="app:delete-file")
        assert err["details"]["reason"] == "not_in_safe_commands" and err["details"]["safe_commands"] == SAFE
        await vg.err("execute_template", "acl_denied", template="Meeting", folder="Private", filename="n")
        await vg.err("execute_template", "acl_denied", template="Private/Secret.md", filename="n")
        await vg.err("execute_template", "path_invalid", template="Meeting", folder="../up", filename="n")
        await vg.err("execute_template", "note_not_found", template="No such template")
        # what the real call would run is still previewed, and nothing is sent or asked
        assert (await vg.ok("execute_command", command_id="editor:save-file"))["dry_run"] is True
        out = await vg.ok("execute_template", template="Meeting", folder="Projects", filename="n")
        assert out["dry_run"] is True
        assert await asked(vg) == []
    assert obsidian.sent == [] and obsidian.created == []


async def test_a_dry_run_preview_in_a_vault_without_a_bridge_is_plugin_missing(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path, write_mode="dry-run", bridge=False) as (vg, _):
        for tool, args in (
            ("execute_command", {"command_id": "editor:save-file"}),
            ("execute_template", {"template": "Meeting"}),
            ("trigger_quickadd", {"choice": "Log"}),
        ):
            err = await vg.err(tool, "plugin_missing", **args)
            assert err["details"]["reason"] == "not_configured"


def plan(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"goal": "g", "steps": [{"id": f"s{i}", **step} for i, step in enumerate(steps)]}


async def test_validate_plan_refuses_a_bridge_step_the_call_refuses(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        unlisted = plan({"tool": "execute_command", "args": {"command_id": "app:delete-file"}})
        out = await vg.ok("validate_plan", plan=unlisted)
        assert not out["valid"]
        assert [(p["step"], p["code"]) for p in out["problems"]] == [("s0", "forbidden")]
        denied = plan(
            {"tool": "execute_template", "args": {"template": "Meeting", "folder": "Private", "filename": "x"}}
        )
        out = await vg.ok("validate_plan", plan=denied)
        assert [(p["step"], p["code"]) for p in out["problems"]] == [("s0", "acl_denied")]
        for refused in (unlisted, denied):  # refused before anyone is asked to approve it
            await vg.err("execute_plan", "validation_error", plan=refused)
        assert await asked(vg) == []
        # steps the calls would run stay valid; a template an earlier step makes is found at run time
        fine = plan(
            {"tool": "execute_command", "args": {"command_id": "editor:save-file"}},
            {"tool": "create_note", "args": {"path": "Templates/New.md", "content": "# New\n"}},
            {"tool": "execute_template", "args": {"template": "Templates/New.md", "folder": "Projects"}},
        )
        out = await vg.ok("validate_plan", plan=fine)
        assert out["valid"], out["problems"]
    assert obsidian.sent == []


async def test_validate_plan_refuses_a_bridge_step_in_a_vault_without_a_bridge(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with vault(make_vault, tmp_path, bridge=False) as (vg, _):
        out = await vg.ok("validate_plan", plan=plan({"tool": "trigger_quickadd", "args": {"choice": "Log"}}))
        assert [(p["step"], p["code"]) for p in out["problems"]] == [("s0", "plugin_missing")]
