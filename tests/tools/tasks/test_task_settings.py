"""set_task_status as the Tasks plugin's code does it beyond the defaults: cancelling a recurring
task (no next occurrence), the plugin's settings (done/cancelled/created dates, next occurrence on
the next line) and `🏁 delete`, through the dispatch chain."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

SETTINGS = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
NOTE = """# Chores

- [ ] water plants 🔁 every week 📅 2026-11-24 🆔 water ⛔ buy ➕ 2026-11-01 ^w
- [ ] file taxes [repeat:: every year] [due:: 2026-04-15]
- [ ] read mail 🏁 delete 📅 2026-11-24
- [ ] backup 🔁 every day 🏁 delete 📅 2026-11-24
"""


async def _set(vg: Any, line: int, status: str, text: str) -> dict[str, Any]:
    out: dict[str, Any] = await vg.ok(
        "set_task_status", path="Chores", line=line, status=status, expected_text=text, date="2026-11-24"
    )
    return out


async def test_cancelling_a_recurring_task_makes_no_next_occurrence(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Chores.md": NOTE})) as vg:
        out = await _set(vg, 3, "-", "water plants 🔁 every week 📅 2026-11-24 🆔 water ⛔ buy ➕ 2026-11-01 ^w")
        assert out["next_occurrence"] is None and out["status_type"] == "cancelled" and out["line"] == 3
        lines = vg.read("Chores.md").split("\n")
        cancelled = "- [-] water plants 🔁 every week 📅 2026-11-24 🆔 water ⛔ buy ➕ 2026-11-01 ❌ 2026-11-24 ^w"
        assert lines[2] == cancelled
        assert len(lines) == len(NOTE.split("\n"))
        # Done after cancelled: the series goes on from the cancelled occurrence, which loses its ❌ date.
        out = await _set(vg, 3, "x", lines[2][6:])
        lines = vg.read("Chores.md").split("\n")
        assert lines[2:4] == [
            "- [ ] water plants 🔁 every week 📅 2026-12-01",  # no id, dependency, created date or block id
            "- [x] water plants 🔁 every week 📅 2026-11-24 🆔 water ⛔ buy ➕ 2026-11-01 ✅ 2026-11-24 ^w",
        ]
        assert out["line"] == 4


async def test_the_tasks_plugin_settings_are_followed(make_vault: Callable[..., Path]) -> None:
    settings = {"setDoneDate": False, "setCreatedDate": True, "recurrenceOnNextLine": True, "setCancelledDate": False}
    # the task below writes its fields as Dataview's: a vault whose plugin writes that format (s74: the
    # plugin writes a new field in its taskFormat, and its default, the emoji, would write ➕)
    settings["taskFormat"] = "dataview"  # type: ignore[assignment]
    async with started(make_vault({"Chores.md": NOTE, SETTINGS: json.dumps(settings)})) as vg:
        out = await _set(vg, 4, "x", "file taxes [repeat:: every year] [due:: 2026-04-15]")
        lines = vg.read("Chores.md").split("\n")
        assert lines[3:5] == [
            "- [x] file taxes [repeat:: every year] [due:: 2026-04-15]",  # no done date: setDoneDate is off
            "- [ ] file taxes [repeat:: every year] [due:: 2027-04-15] [created:: 2026-11-24]",  # below it
        ]
        assert out["line"] == 4 and out["next_occurrence"].endswith("[created:: 2026-11-24]")
        await _set(vg, 6, "-", "read mail 🏁 delete 📅 2026-11-24")
        assert vg.read("Chores.md").split("\n")[5] == "- [-] read mail 🏁 delete 📅 2026-11-24"  # no ❌ date


async def test_on_completion_delete_removes_the_done_task(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Chores.md": NOTE})) as vg:
        out = await _set(vg, 5, "x", "read mail 🏁 delete 📅 2026-11-24")
        assert out["deleted"] is True and out["line"] == 5
        lines = vg.read("Chores.md").split("\n")
        assert "read mail" not in vg.read("Chores.md")
        assert lines[4] == "- [ ] backup 🔁 every day 🏁 delete 📅 2026-11-24"
        out = await _set(vg, 5, "x", "backup 🔁 every day 🏁 delete 📅 2026-11-24")
        assert out["deleted"] is True and out["next_occurrence"] == "backup 🔁 every day 🏁 delete 📅 2026-11-25"
        assert vg.read("Chores.md").split("\n")[4:] == ["- [ ] backup 🔁 every day 🏁 delete 📅 2026-11-25", ""]
        cancelled = await vg.ok(
            "set_task_status", path="Chores", line=5, status="-",
            expected_text="backup 🔁 every day 🏁 delete 📅 2026-11-25",
        )  # fmt: skip
        assert cancelled["deleted"] is False  # only done deletes


async def test_a_new_field_is_written_in_the_plugins_format(make_vault: Callable[..., Path]) -> None:
    """The plugin writes every field in its taskFormat (settings: 'tasksPluginEmoji' by default, or
    'dataview'): completing `- [ ] pay [due:: 2026-12-01]` in a vault with Tasks settings of the
    default format appends `✅ 2026-12-02`, and a task with no field in a 'dataview' vault gets
    `[completion:: 2026-12-02]`; before (s74), a new field followed the task's own fields, the
    emoji when it had none. A vault with no Tasks settings keeps that (Dataview's completion)."""
    note = "- [ ] pay [due:: 2026-12-01]\n- [ ] plain\n"
    for settings, written in (
        ({}, ["- [x] pay [due:: 2026-12-01] ✅ 2026-12-02", "- [x] plain ✅ 2026-12-02"]),
        ({"taskFormat": "dataview"}, ["- [x] pay [due:: 2026-12-01] [completion:: 2026-12-02]",
                                      "- [x] plain [completion:: 2026-12-02]"]),
        (None, ["- [x] pay [due:: 2026-12-01] [completion:: 2026-12-02]", "- [x] plain ✅ 2026-12-02"]),
    ):  # fmt: skip
        files = {"T.md": note} if settings is None else {"T.md": note, SETTINGS: json.dumps(settings)}
        async with started(make_vault(files)) as vg:
            for line, text in ((1, "pay [due:: 2026-12-01]"), (2, "plain")):
                await vg.ok("set_task_status", path="T", line=line, status="x", expected_text=text, date="2026-12-02")
            assert vg.read("T.md").split("\n")[:2] == written, settings
