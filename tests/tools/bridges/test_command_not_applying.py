"""What execute_command's `executed` says. The Local REST API's `POST /commands/{id}/` answers 204
whenever the command exists (src/requestHandler.ts `commandPost` ignores what
`executeCommandById` returns): a command whose check refuses it where the focus is (an editor
command with no note open) does nothing and is answered 204 all the same. The output schema said
`executed` meant "True: Obsidian ran it"; found comparing the bridge with the plugin's source and
docs/openapi.yaml (B5 s79). It now says Obsidian took the command and that the plugin does not
say what the command did."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.tools.bridges.standin import Obsidian
from tests.tools.bridges.test_bridge_tools import api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too


async def test_executed_does_not_claim_the_command_ran(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    obsidian = Obsidian(refusing={"editor:save-file"})
    async with bridged(make_vault, tmp_path, obsidian, safe_commands=["editor:save-file"]) as (vg, _):
        out = await vg.confirmed("execute_command", command_id="editor:save-file")
        assert out == {"command_id": "editor:save-file", "executed": True}, out  # what the plugin's 204 says
        [spec] = [s for s in vg.app.dispatcher.listed() if s.name == "execute_command"]
        said = str(spec.output_schema())
        assert "Obsidian ran it" not in said and "204" in said, said
    assert obsidian.executed == []  # nothing ran
