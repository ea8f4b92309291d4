"""Periodic notes and templates through the full dispatch chain."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

DAILY_TEMPLATE = "---\ncreated: {{date:YYYY-MM-DD}}\ntags:\n  - daily\n---\n# {{title}}\n\n## Log\n\n## Notes\n"


def vault(**extra: str) -> dict[str, str]:
    files = {
        "Templates/Daily.md": DAILY_TEMPLATE,
        "Templates/Meeting.md": "---\ntype: meeting\ntags: [meeting]\n---\n## Meeting {{date}} {{time}}\n- attendees\n",
        "Templates/Stamp.md": "stamp {{date:YYYY q[Q]Q T}}\n",
        ".obsidian/templates.json": json.dumps({"folder": "Templates", "dateFormat": "DD.MM.YYYY"}),
    }
    files.update(extra)
    return files


@pytest.mark.covers("get_periodic_note", "success")
async def test_get_periodic_note_uses_defaults_then_core_daily_notes(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(vault())) as vg:
        out = await vg.ok("get_periodic_note", date="2026-11-24")
        assert out["path"] == "2026-11-24.md" and out["exists"] is False and out["source"] == "default"
        week = await vg.ok("get_periodic_note", period="weekly", date="2025-12-28")
        assert week["path"] == "2026-W01.md" and week["period_start"] == "2025-12-28"
        assert (await vg.ok("get_periodic_note", period="quarterly", date="2026-11-24"))["path"] == "2026-Q4.md"
        assert (await vg.ok("get_periodic_note", period="yearly", date="2026-11-24"))["path"] == "2026.md"
    files = vault(**{
        ".obsidian/daily-notes.json": json.dumps({"folder": "Journal/", "format": "YYYY/MM/YYYY-MM-DD ddd"}),
        "Journal/2026/11/2026-11-24 Tue.md": "hello\n",
    })  # fmt: skip
    async with started(make_vault(files)) as vg:
        out = await vg.ok("get_periodic_note", date="2026-11-24")
        assert out["path"] == "Journal/2026/11/2026-11-24 Tue.md" and out["exists"] and out["content"] == "hello\n"
        assert out["source"] == "daily-notes" and out["obsidian_url"].startswith("obsidian://open?")


async def test_periodic_notes_plugin_settings_in_both_formats(make_vault: Callable[..., Path]) -> None:
    old = {"weekly": {"enabled": True, "format": "GGGG-[W]WW", "folder": "Weekly", "template": "Templates/Daily"},
           "daily": {"enabled": False, "format": "DD-MM-YYYY", "folder": "X"}}  # fmt: skip
    files = vault(**{".obsidian/plugins/periodic-notes/data.json": json.dumps(old),
                     ".obsidian/daily-notes.json": json.dumps({"folder": "Daily"})})  # fmt: skip
    async with started(make_vault(files)) as vg:
        week = await vg.ok("get_periodic_note", period="weekly", date="2021-01-03")
        assert (week["path"], week["source"], week["period_start"]) == (
            "Weekly/2020-W53.md",
            "periodic-notes 0.0.17",
            "2020-12-28",
        )
        daily = await vg.ok("get_periodic_note", date="2026-11-24")
        assert (daily["path"], daily["source"]) == ("Daily/2026-11-24.md", "daily-notes")
    day = {"enabled": True, "format": "YYYY-MM-DD", "folder": "Work/Days", "templatePath": "Templates/Daily.md"}
    new = {"activeCalendarSet": "Work", "calendarSets": [
        {"id": "Default", "day": {"enabled": True, "format": "YYYY-MM-DD", "folder": "Home"}},
        {"id": "Work", "day": day, "month": {"enabled": True, "format": "YYYY-MMMM", "folder": "Work/Months"}},
    ]}  # fmt: skip
    async with started(make_vault(vault(**{".obsidian/plugins/periodic-notes/data.json": json.dumps(new)}))) as vg:
        daily = await vg.ok("get_periodic_note", date="2026-11-24")
        assert (daily["path"], daily["source"], daily["template"]) == (
            "Work/Days/2026-11-24.md", "periodic-notes 1.0", "Templates/Daily.md")  # fmt: skip
        month = await vg.ok("get_periodic_note", period="monthly", date="2026-11-24")
        assert month["path"] == "Work/Months/2026-November.md" and month["period_start"] == "2026-11-01"


@pytest.mark.covers("get_periodic_note", "failure")
@pytest.mark.covers("create_periodic_note", "failure")
@pytest.mark.parametrize("fmt", ["YYYY-MM-DD Qo", "YYYY-MM-DD SSS"])  # written by Moment but not readable
async def test_periodic_note_whose_name_cannot_be_read_back_is_refused(
    make_vault: Callable[..., Path], fmt: str
) -> None:
    files = vault(**{".obsidian/daily-notes.json": json.dumps({"format": fmt})})
    async with started(make_vault(files)) as vg:
        before = vg.snapshot()
        error = await vg.err("get_periodic_note", "validation_error", date="2026-11-24")
        assert error["details"]["reason"] == "unsupported_date_format"
        await vg.err("create_periodic_note", "validation_error", date="2026-11-24")
        await vg.err("get_periodic_note", "validation_error", date="24.11.2026")
        assert vg.snapshot() == before


@pytest.mark.covers("create_periodic_note", "success")
async def test_create_periodic_note_applies_the_template_with_the_notes_date(make_vault: Callable[..., Path]) -> None:
    files = vault(**{".obsidian/daily-notes.json": json.dumps({"folder": "Daily", "template": "Templates/Daily"})})
    async with started(make_vault(files)) as vg:
        out = await vg.ok("create_periodic_note", date="2026-11-24")
        assert out["created"] is True and out["path"] == "Daily/2026-11-24.md"
        assert vg.read("Daily/2026-11-24.md") == DAILY_TEMPLATE.replace("{{date:YYYY-MM-DD}}", "2026-11-24").replace(
            "{{title}}", "2026-11-24"
        )
        again = await vg.ok("create_periodic_note", date="2026-11-24")
        assert again["created"] is False and again["etag"] == out["etag"]


@pytest.mark.covers("append_to_periodic_note", "success")
async def test_append_creates_the_note_then_appends_under_a_heading(make_vault: Callable[..., Path]) -> None:
    files = vault(**{".obsidian/daily-notes.json": json.dumps({"folder": "Daily", "template": "Templates/Daily"})})
    async with started(make_vault(files)) as vg:
        await vg.ok(
            "append_to_periodic_note", date="2026-11-24", content="- 09:00 standup", heading=["2026-11-24", "Log"]
        )
        await vg.ok(
            "append_to_periodic_note", date="2026-11-24", content="- 10:00 review", heading=["2026-11-24", "Log"]
        )
        await vg.ok("append_to_periodic_note", date="2026-11-24", content="the end")
        text = vg.read("Daily/2026-11-24.md")
    assert text.endswith("## Log\n- 09:00 standup\n- 10:00 review\n\n## Notes\nthe end\n")


@pytest.mark.covers("append_to_periodic_note", "failure")
async def test_append_to_a_missing_heading_fails_and_creates_nothing(make_vault: Callable[..., Path]) -> None:
    files = vault(**{".obsidian/daily-notes.json": json.dumps({"folder": "Daily", "template": "Templates/Daily"})})
    async with started(make_vault(files)) as vg:
        before = vg.snapshot()
        await vg.err("append_to_periodic_note", "validation_error", date="2026-11-24", content="x", heading=["Nope"])
        await vg.err("append_to_periodic_note", "validation_error", date="2026-11-24", content="")
        assert vg.snapshot() == before


@pytest.mark.covers("list_templates", "success")
async def test_list_templates_reads_the_folder_and_formats(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(vault())) as vg:
        out = await vg.ok("list_templates")
    assert out["folder"] == "Templates" and out["date_format"] == "DD.MM.YYYY" and out["time_format"] == "HH:mm"
    assert [i["title"] for i in out["items"]] == ["Daily", "Meeting", "Stamp"]


@pytest.mark.covers("list_templates", "failure")
async def test_list_templates_refuses_a_bad_cursor(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(vault())) as vg:
        await vg.err("list_templates", "validation_error", cursor="not-a-cursor")
        await vg.err("list_templates", "validation_error", limit=0)


@pytest.mark.covers("apply_template", "success")
async def test_apply_template_creates_or_inserts_and_merges_properties(make_vault: Callable[..., Path]) -> None:
    target = "---\ntitle: Sync  # keep\ntags: [work]\ntype: call\n---\n# Sync\n\n## Agenda\n- one\n\n## Notes\n"
    async with started(make_vault(vault(**{"Sync.md": target}))) as vg:
        out = await vg.ok("apply_template", template="Meeting", path="New/Standup", date="2026-11-24T09:05")
        assert out["created"] and out["path"] == "New/Standup.md" and out["template"] == "Templates/Meeting.md"
        assert (
            vg.read("New/Standup.md")
            == "---\ntype: meeting\ntags: [meeting]\n---\n## Meeting 24.11.2026 09:05\n- attendees\n"
        )
        await vg.ok(
            "apply_template", template="Meeting", path="Sync", heading=["Sync", "Agenda"], date="2026-11-24T09:05"
        )
        text = vg.read("Sync.md")
    assert text.startswith("---\ntitle: Sync  # keep\ntags: [work, meeting]\ntype: call\n---\n")
    assert "## Agenda\n- one\n\n## Meeting 24.11.2026 09:05\n- attendees\n\n## Notes\n" in text


@pytest.mark.covers("apply_template", "failure")
async def test_apply_template_failures_change_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(vault(**{"Sync.md": "# Sync\n"}))) as vg:
        before = vg.snapshot()
        await vg.err("apply_template", "note_not_found", template="Nope", path="X")
        await vg.err("apply_template", "validation_error", template="Meeting", path="Sync", heading=["Missing"])
        await vg.err("apply_template", "note_not_found", template="Meeting", path="New", heading=["A"])
        await vg.err("apply_template", "conflict", template="Meeting", path="Sync", expected_etag="0" * 32)
        await vg.err("apply_template", "validation_error", template="Meeting", path="Sync", position="replace")
        assert vg.snapshot() == before


async def test_periodic_notes_and_templates_follow_the_acl(make_vault: Callable[..., Path]) -> None:
    files = vault(**{
        ".obsidian/daily-notes.json": json.dumps({"folder": "Private", "template": "Templates/Daily"}),
        "Templates/Secret.md": "secret\n",
    })  # fmt: skip
    acl = {"prefix_rules": [{"path": "Private", "read": "deny"}, {"path": "Templates/Secret.md", "read": "deny"}]}
    async with started(make_vault(files), acl=acl) as vg:
        before = vg.snapshot()
        await vg.err("get_periodic_note", "acl_denied", date="2026-11-24")
        await vg.err("create_periodic_note", "acl_denied", date="2026-11-24")
        await vg.err("append_to_periodic_note", "acl_denied", date="2026-11-24", content="x")
        listed = await vg.ok("list_templates")
        assert "Templates/Secret.md" not in [i["path"] for i in listed["items"]]
        await vg.err("apply_template", "acl_denied", template="Templates/Secret", path="Open")
        assert vg.snapshot() == before


async def test_a_missing_configured_template_creates_nothing(make_vault: Callable[..., Path]) -> None:
    files = vault(**{".obsidian/daily-notes.json": json.dumps({"template": "Templates/Gone"})})
    async with started(make_vault(files)) as vg:
        before = vg.snapshot()
        error = await vg.err("create_periodic_note", "note_not_found", date="2026-11-24")
        assert error["details"]["path"] == "Templates/Gone.md"
        await vg.err("append_to_periodic_note", "note_not_found", date="2026-11-24", content="x")
        assert vg.snapshot() == before


@pytest.mark.covers("get_periodic_note", "failure")
@pytest.mark.covers("append_to_periodic_note", "failure")
async def test_a_date_of_the_right_shape_that_names_no_day_is_a_validation_error(
    make_vault: Callable[..., Path],
) -> None:
    """Found by the fuzzing suite: '0000-00-00' matched the pattern and crashed the tool."""
    async with started(make_vault(vault())) as vg:
        before = vg.snapshot()
        for day in ("0000-00-00", "2026-02-30"):
            error = await vg.err("get_periodic_note", "validation_error", date=day)
            assert error["details"]["field"] == "date"
            await vg.err("create_periodic_note", "validation_error", date=day)
            await vg.err("append_to_periodic_note", "validation_error", date=day, content="x")
        assert vg.snapshot() == before


async def test_a_missing_template_names_the_templates_meant(make_vault: Callable[..., Path]) -> None:
    """apply_template of a template name that fits none answered "no note at 'Meetng.md'" with the
    vault's closest note names (or none) and the hint to check list_notes: nothing pointed at the
    templates folder, where the template was meant to be."""
    async with started(make_vault(vault(**{"Notes/Meetings log.md": "log\n"}))) as vg:
        await vg.indexed()
        before = vg.snapshot()
        close = await vg.err("apply_template", "note_not_found", template="meetng", path="X")
        assert close["details"]["suggestions"][0] == "Templates/Meeting.md"
        assert "list_templates" in close["hint"] and "'Templates'" in close["message"]
        far = await vg.err("apply_template", "note_not_found", template="Zebra", path="X")
        assert far["details"]["suggestions"] == [] and "list_templates" in far["hint"]
        assert vg.snapshot() == before
        made = await vg.ok("apply_template", template=close["details"]["suggestions"][0], path="X")
        assert made["template"] == "Templates/Meeting.md"


@pytest.mark.covers("create_periodic_note", "failure")
async def test_a_period_or_template_date_past_the_calendars_ends_is_a_validation_error(
    make_vault: Callable[..., Path],
) -> None:
    """Found probing the periodic tools with hostile dates (R5 s75): the week holding 0001-01-01
    starts in year 0 and the one holding 9999-12-31 ends in year 10000, and a template's
    {{tomorrow}} of 9999-12-31 is no date either; Python's dates stop at years 1 and 9999, and each
    answered internal_error. Refused as the date's validation_error now, nothing written."""
    day = {"enabled": True, "format": "YYYY-MM-DD", "folder": "Days", "templatePath": "Templates/Next"}
    week = {"enabled": True, "format": "gggg-[W]ww", "folder": "Weeks"}
    plugin = {"activeCalendarSet": "S", "calendarSets": [{"id": "S", "day": day, "week": week}]}
    files = vault(**{
        ".obsidian/plugins/periodic-notes/data.json": json.dumps(plugin),
        "Templates/Next.md": "next {{tomorrow}}\n",
    })  # fmt: skip
    async with started(make_vault(files)) as vg:
        before = vg.snapshot()
        calls = (("get_periodic_note", {}), ("create_periodic_note", {}), ("append_to_periodic_note", {"content": "x"}))
        for tool, extra in calls:
            for date in ("0001-01-01", "9999-12-31"):
                error = await vg.err(tool, "validation_error", period="weekly", date=date, **extra)
                assert error["details"]["field"] == "date"
        for tool, extra in calls[1:]:
            error = await vg.err(tool, "validation_error", period="daily", date="9999-12-31", **extra)
            assert error["details"]["field"] == "date"
        assert vg.snapshot() == before
        made = await vg.ok("create_periodic_note", period="daily", date="9999-12-30")
        assert vg.read(made["path"]) == "next 9999-12-31\n"


async def test_a_plan_or_a_dry_run_refuses_a_periodic_date_the_call_refuses(make_vault: Callable[..., Path]) -> None:
    """validate_plan passed a create_periodic_note of 2026-02-30 (a day no calendar has) or of a
    week reaching year 10000, and the run then failed at that step after the steps before it had
    run (R5 s75); a dry-run vault previewed such a note being made. The periodic tools' static
    check now resolves the date and its period's note as the call does."""
    week = {"enabled": True, "format": "gggg-[W]ww", "folder": "Weeks"}
    plugin = {"activeCalendarSet": "S", "calendarSets": [{"id": "S", "week": week}]}
    root = make_vault(vault(**{".obsidian/plugins/periodic-notes/data.json": json.dumps(plugin)}))
    bad = [("daily", "2026-02-30"), ("weekly", "9999-12-31"), ("weekly", "0001-01-01")]
    async with started(root) as vg:
        before = vg.snapshot()
        for period, day in bad:
            steps = [
                {"id": "n", "tool": "create_note", "args": {"path": "Before", "content": "x\n"}},
                {"id": "p", "tool": "create_periodic_note", "args": {"period": period, "date": day}},
                {"id": "a", "tool": "append_to_periodic_note", "args": {"period": period, "date": day, "content": "x"}},
            ]
            checked = await vg.ok("validate_plan", plan={"goal": "week", "steps": steps})
            assert [(p["step"], p["code"]) for p in checked["problems"]] == [
                ("p", "validation_error"),
                ("a", "validation_error"),
            ], checked
            assert checked["valid"] is False
        ok = await vg.ok("validate_plan", plan={"goal": "day", "steps": [steps[0], {**steps[1], "args": {}}]})
        assert ok["valid"], ok["problems"]
        assert vg.snapshot() == before
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        for period, day in bad:
            error = await vg.err("create_periodic_note", "validation_error", period=period, date=day)
            assert error["details"]["field"] == "date"
        assert vg.snapshot() == before
