"""set_task_status given a status type writes the vault's status of that type, as the Tasks plugin
settings register it: `in_progress` / `cancelled` wrote the plugin's default `/` and `-` even when
the settings had deleted them (the plugin then reads `[/]` as Unknown, to do: the task the caller
asked to start was still a to-do). Now: the settings' own status of that type, or
`validation_error` (no_such_status) with nothing written when they have none. Through the dispatcher."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

PLUGIN = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
NOTE = "# T\n\n- [ ] ask Bob\n"


def _settings(*custom: tuple[str, str, str]) -> str:
    statuses = [{"symbol": s, "name": n, "nextStatusSymbol": "x", "type": t} for s, n, t in custom]
    return json.dumps({"statusSettings": {"customStatuses": statuses}})


async def test_a_type_writes_the_settings_status_of_that_type(make_vault: Callable[..., Path]) -> None:
    settings = _settings(("w", "Working", "IN_PROGRESS"), ("d", "Dropped", "CANCELLED"))
    async with started(make_vault({"T.md": NOTE, PLUGIN: settings})) as vg:
        out = await vg.ok("set_task_status", path="T", line=3, status="in_progress", expected_text="ask Bob")
        assert out["status_type"] == "in_progress" and vg.read("T.md") == "# T\n\n- [w] ask Bob\n"
        out = await vg.ok("set_task_status", path="T", line=3, status="Cancelled", expected_text="ask Bob",
                          date="2026-12-02")  # fmt: skip
        assert out["status_type"] == "cancelled" and vg.read("T.md") == "# T\n\n- [d] ask Bob ❌ 2026-12-02\n"


async def test_a_type_the_settings_deleted_is_refused(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"T.md": NOTE, PLUGIN: _settings(("h", "On Hold", "ON_HOLD"))})) as vg:
        for status in ("in_progress", "cancelled"):
            err = await vg.err("set_task_status", "validation_error", path="T", line=3, status=status,
                               expected_text="ask Bob")  # fmt: skip
            assert err["details"]["reason"] == "no_such_status" and err["details"]["status"] == status
        assert vg.read("T.md") == NOTE
        # a character is written as given: '/' is then the plugin's Unknown status, a to-do
        out = await vg.ok("set_task_status", path="T", line=3, status="/", expected_text="ask Bob")
        assert out["status_type"] == "todo" and vg.read("T.md") == "# T\n\n- [/] ask Bob\n"


async def test_the_default_statuses_are_written_as_before(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"T.md": NOTE})) as vg:
        out = await vg.ok("set_task_status", path="T", line=3, status="in_progress", expected_text="ask Bob")
        assert out["status_type"] == "in_progress" and vg.read("T.md") == "# T\n\n- [/] ask Bob\n"
        await vg.ok("set_task_status", path="T", line=3, status="todo", expected_text="ask Bob")
        await vg.ok("set_task_status", path="T", line=3, status="done", expected_text="ask Bob", date="2026-12-02")
        assert vg.read("T.md") == "# T\n\n- [x] ask Bob ✅ 2026-12-02\n"
