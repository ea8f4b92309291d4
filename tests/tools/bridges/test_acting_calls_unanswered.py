"""A bridge call that acts in Obsidian (trigger_quickadd, execute_template, execute_command) and
gets no answer within the bound is not retryable: the request reached the plugin and may still
run, through the whole dispatch chain against the Local REST API stand-in
(tests/tools/bridges/standin.py).

QuickAdd's executeChoice awaits the choice's prompts ("{{VALUE}}" without a value, a file name to
ask), which wait for the person at Obsidian; the route answers only then. The call answered
`plugin_unreachable` with `retryable: true` and "Obsidian may be busy or closed; try again": a
client or a plan step's `retry` that did so ran the choice a second time (a second note, a second
capture) once the person answered. A read that times out stays retryable."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.tools.bridges.standin import Obsidian
from tests.tools.bridges.test_bridge_tools import api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too


async def test_a_quickadd_choice_left_waiting_on_a_prompt_is_not_retryable(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    obsidian = Obsidian(quickadd_prompt_s=3.0)
    async with bridged(make_vault, tmp_path, obsidian, timeout_s=1.0) as (vg, _):
        token = await vg.token_for("trigger_quickadd", choice="Log")
        err = await vg.err("trigger_quickadd", "plugin_unreachable", choice="Log", elicit_token=token)
        assert err["retryable"] is False, err
        assert err["details"]["reason"] == "timeout" and err["details"]["may_have_run"] is True, err
        assert [run["choice"] for run in obsidian.quickadd_runs] == ["Log"]


async def test_a_read_that_times_out_stays_retryable(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    obsidian = Obsidian(hold=True)
    async with bridged(make_vault, tmp_path, obsidian, timeout_s=1.0) as (vg, _):
        err = await vg.err("list_quickadd_actions", "plugin_unreachable")
        assert err["retryable"] is True and err["details"]["reason"] == "timeout", err
        assert "may_have_run" not in err["details"]
