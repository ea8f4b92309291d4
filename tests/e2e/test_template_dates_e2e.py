"""Template dates with letters that are no Moment.js token (`{{date:YYYY-MM-DDTHH:mm}}`, the usual
ISO timestamp line of a daily template), over real HTTP with the SDK client: Moment writes such a
letter as it is, so apply_template, create_periodic_note and append_to_periodic_note fill it as
Obsidian's Templates and Daily notes plugins do instead of refusing the template."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

DAY = '---\ncreated: "{{date:YYYY-MM-DDTHH:mm}}"\n---\n# {{title}}\n\n## Log\n'
FILES = {
    "Templates/Day.md": DAY,
    "Templates/Stamp.md": "{{date:dddd [at] h:mm a, [week] W, T}} {{time:HH[h]mm}}\n",
    ".obsidian/templates.json": json.dumps({"folder": "Templates"}),
    ".obsidian/daily-notes.json": json.dumps({"folder": "Daily", "format": "YYYY-MM-DD", "template": "Templates/Day"}),
}


async def test_templates_write_letters_that_are_no_token_as_moment_does(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            await ok(client, "apply_template", template="Day", path="Inbox/New", date="2026-11-30T10:00")
            await ok(client, "apply_template", template="Stamp", path="Inbox/Stamp", date="2026-11-30T10:05")
            made = await ok(client, "create_periodic_note", date="2026-11-30")
            assert made["path"] == "Daily/2026-11-30.md"
            await ok(client, "append_to_periodic_note", date="2026-12-01", content="- walked", heading=["Log"])
        assert harness.read("Inbox/New.md") == '---\ncreated: "2026-11-30T10:00"\n---\n# New\n\n## Log\n'
        assert harness.read("Inbox/Stamp.md") == "Monday at 10:05 am, week 49, T 10h05\n"
        assert harness.read("Daily/2026-11-30.md").startswith('---\ncreated: "2026-11-30T')
        day = harness.read("Daily/2026-12-01.md")
        assert day.startswith('---\ncreated: "2026-12-01T') and day.endswith("## Log\n- walked\n")
    # A name that cannot be read back (Qo is written by Moment, never read) stays refused.
    files = {
        **FILES,
        ".obsidian/daily-notes.json": json.dumps({"format": "YYYY-MM-DD Qo", "template": "Templates/Day"}),
    }
    async with e2e(make_vault(files)) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        refused = await error(client, "create_periodic_note", date="2026-11-30")
        assert refused["code"] == "validation_error"
        assert refused["details"]["reason"] == "unsupported_date_format"


async def test_a_period_past_the_calendars_end_is_a_validation_error(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """The week of 9999-12-31 ends in year 10000 and the week of 0001-01-01 starts in year 0: each
    was an internal_error before 26d7f46b (R5 s75), now the date's validation_error."""
    week = {"enabled": True, "format": "gggg-[W]ww", "folder": "Weeks"}
    plugin = {"activeCalendarSet": "S", "calendarSets": [{"id": "S", "week": week}]}
    files = {**FILES, ".obsidian/plugins/periodic-notes/data.json": json.dumps(plugin)}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        before = harness.snapshot()
        for date in ("0001-01-01", "9999-12-31"):
            refused = await error(client, "create_periodic_note", period="weekly", date=date)
            assert refused["code"] == "validation_error" and refused["details"]["field"] == "date"
        assert harness.snapshot() == before
