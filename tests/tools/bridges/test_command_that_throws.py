"""A command that throws in Obsidian is no retryable failure. The Local REST API's
`POST /commands/{id}/` answers 500 with the error's message when `executeCommand` throws
(src/requestHandler.ts `commandPost`): the command ran, in part. execute_command answered
`plugin_unreachable`, `retryable: true` ("Obsidian failed ..."), so a client or a plan step's
`retry` ran it again. Found running the bridge's routes against the plugin's source (B3 s78).
Now `plugin_incompatible`, `reason: plugin_failed`, not retryable, naming the plugin's message;
a 5xx of a read stays retryable."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.tools.bridges.standin import Obsidian
from tests.tools.bridges.test_bridge_tools import api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too


async def test_a_command_that_throws_is_not_retryable(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    obsidian = Obsidian(throwing={"editor:save-file"})
    async with bridged(make_vault, tmp_path, obsidian, safe_commands=["editor:save-file"]) as (vg, _):
        token = await vg.token_for("execute_command", command_id="editor:save-file")
        err = await vg.err("execute_command", "plugin_incompatible", command_id="editor:save-file", elicit_token=token)
        assert err["retryable"] is False, err
        assert err["details"]["reason"] == "plugin_failed" and err["details"]["status"] == 500, err
        assert "Cannot read properties of null" in err["message"], err
    assert obsidian.executed == ["editor:save-file"]
