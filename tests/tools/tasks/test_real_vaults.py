"""The tasks domain on copies of the shared real vaults (skipped without VAULTGATE_TEST_DATA).

kepano-obsidian holds daily notes (`Daily/YYYY-MM-DD.md`) and a `Templates/` folder but no
`.obsidian/` settings in the shared copy: the tests write the settings its folders imply (daily
notes in `Daily` from `Templates/Daily Note Template`, templates in `Templates`).
obsidian-help-en documents the formats; its task-list examples are checked as it shows them.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from tests.conftest import started
from tests.real_vaults import VAULTS, needs, writable_copy

KEPANO = VAULTS / "kepano-obsidian"
HELP = VAULTS / "obsidian-help-en"


def _kepano(tmp_path: Path) -> Path:
    root = tmp_path / "kepano"
    writable_copy(KEPANO, root)
    (root / ".obsidian").mkdir(exist_ok=True)
    daily = {"folder": "Daily", "format": "YYYY-MM-DD", "template": "Templates/Daily Note Template"}
    (root / ".obsidian" / "daily-notes.json").write_text(json.dumps(daily))
    (root / ".obsidian" / "templates.json").write_text(json.dumps({"folder": "Templates"}))
    return root


@needs(KEPANO)
async def test_kepano_daily_notes_and_templates(tmp_path: Path) -> None:
    root = _kepano(tmp_path)
    async with started(root) as vg:
        await vg.indexed()
        existing = await vg.ok("get_periodic_note", date="2023-09-12")
        assert existing["exists"] and existing["content"] == (root / "Daily/2023-09-12.md").read_text()
        templates = await vg.ok("list_templates", limit=1000)
        names = [t["title"] for t in templates["items"]]
        on_disk = sorted(p.relative_to(root).as_posix() for p in (root / "Templates").rglob("*.md"))
        assert [t["path"] for t in templates["items"]] == on_disk and "Daily Note Template" in names
        made = await vg.ok("create_periodic_note", date="2026-11-24")
        assert made["path"] == "Daily/2026-11-24.md" and made["created"]
        assert vg.read("Daily/2026-11-24.md") == (root / "Templates/Daily Note Template.md").read_text()
        # {{date}} in a template's YAML becomes a date property of the new note
        book = await vg.ok("apply_template", template="Book Template", path="References/Dune", date="2026-11-24T08:00")
        assert book["created"]
        props = await vg.ok("get_properties", path="References/Dune")
        assert props["properties"]["created"] == "2026-11-24" and props["properties"]["tags"] == ["to-read"]
        # inserting into a daily note merges the template's properties into the note's
        await vg.ok("apply_template", template="Journal Template", path="Daily/2026-11-24", date="2026-11-24T08:00")
        merged = await vg.ok("get_properties", path="Daily/2026-11-24")
        assert merged["properties"] == {"tags": ["daily", "note", "journal"], "created": "2026-11-24"}
        appended = await vg.ok("append_to_periodic_note", date="2026-11-24", content="- met Ann", heading=["Notes"])
        assert appended["created"] is False and "## Notes\n" in vg.read("Daily/2026-11-24.md")
        # the Monthly Note Template with the Periodic Notes defaults
        month = await vg.ok("get_periodic_note", period="monthly", date=date(2023, 9, 1).isoformat())
        assert month["path"] == "2023-09.md" and month["source"] == "default"


@needs(KEPANO)
async def test_kepano_tasks_list_and_tick(tmp_path: Path) -> None:
    async with started(_kepano(tmp_path)) as vg:
        await vg.indexed()
        tasks = await vg.ok("list_tasks", note="Minimal Theme", limit=100)
        assert tasks["total"] >= 3 and all(t["status_type"] == "done" for t in tasks["items"][:3])
        first = tasks["items"][0]
        out = await vg.ok("set_task_status", path=first["path"], line=first["line"], status=" ",
                          expected_text=first["text"])  # fmt: skip
        assert out["status_type"] == "todo"
        again = await vg.ok("list_tasks", note="Minimal Theme", status=["todo"])
        assert [t["line"] for t in again["items"]] == [first["line"]]


@needs(HELP)
async def test_help_vault_task_list_examples_as_documented(tmp_path: Path) -> None:
    root = tmp_path / "help"
    writable_copy(HELP, root)
    async with started(root) as vg:
        await vg.indexed()
        out = await vg.ok("list_tasks", note="Basic formatting syntax", limit=100)
    # "Task lists": two tasks outside the code block, three in the tip callout (its code block
    # aside); "Nesting lists": two tasks with a tab-indented subtask each (the code block aside)
    assert [(t["status"], t["description"]) for t in out["items"]] == [
        ("x", "This is a completed task."),
        (" ", "This is an incomplete task."),
        ("x", "Milk"),
        ("?", "Eggs"),
        ("-", "Eggs"),
        (" ", "Task item 1"),
        (" ", "Subtask 1"),
        (" ", "Task item 2"),
        (" ", "Subtask 1"),
    ]
    assert [t["status_type"] for t in out["items"][:5]] == ["done", "todo", "done", "todo", "cancelled"]
    assert [t["heading"] for t in out["items"][::4]] == ["Task lists", "Task lists", "Nesting lists"]


@needs(KEPANO)
async def test_kepano_with_the_periodic_notes_plugin(tmp_path: Path) -> None:
    root = _kepano(tmp_path)
    week_template = "---\ntags:\n  - weekly\n---\n# {{title}}\n\n{{monday:YYYY-MM-DD}} – {{sunday:YYYY-MM-DD}}\n"
    (root / "Templates/Weekly Note Template.md").write_text(week_template)

    def period(fmt: str, folder: str, template: str) -> dict[str, object]:
        return {"enabled": True, "format": fmt, "folder": folder, "templatePath": f"Templates/{template}.md"}

    sets = {"activeCalendarSet": "Default", "calendarSets": [{
        "id": "Default", "ctime": "1", "timelineMode": True,
        "day": period("YYYY-MM-DD", "Daily", "Daily Note Template"),
        "week": period("gggg-[W]ww", "Daily", "Weekly Note Template"),
        "month": period("YYYY-MM", "", "Monthly Note Template"),
    }]}  # fmt: skip
    (root / ".obsidian/plugins/periodic-notes").mkdir(parents=True)
    (root / ".obsidian/plugins/periodic-notes/data.json").write_text(json.dumps(sets))
    (root / ".obsidian/app.json").write_text(json.dumps({"weekStart": "monday", "localeOverride": "en-gb"}))
    async with started(root) as vg:
        await vg.indexed()
        # Every real daily note is where the settings put the note of the day its name gives.
        for note in sorted((root / "Daily").glob("*.md")):
            out = await vg.ok("get_periodic_note", date=note.stem)
            assert out["exists"] and out["path"] == f"Daily/{note.name}" and out["source"] == "periodic-notes 1.0"
        week = await vg.ok("create_periodic_note", period="weekly", date="2023-09-17")  # a Sunday
        assert week["path"] == "Daily/2023-W37.md"  # en-gb weeks: Monday 11 to Sunday 17 September
        assert vg.read("Daily/2023-W37.md") == week_template.replace("{{title}}", "2023-W37").replace(
            "{{monday:YYYY-MM-DD}} – {{sunday:YYYY-MM-DD}}", "2023-09-11 – 2023-09-17")  # fmt: skip
        month = await vg.ok("create_periodic_note", period="monthly", date="2023-10-05")
        assert month["path"] == "2023-10.md"
        assert vg.read("2023-10.md") == (root / "Templates/Monthly Note Template.md").read_text()  # no variables
        # A recurring task in a real daily note: cancelling ends the series, completing continues it.
        daily = "Daily/2023-09-12.md"
        added = "\n- [ ] water plants 🔁 every week 📅 2023-09-12\n- [ ] review notes 🔁 every month 📅 2023-09-12\n"
        await vg.ok("append_note", path=daily, content=added)
        tasks = await vg.ok("list_tasks", note="2023-09-12", status=["todo"])
        water, review = tasks["items"][-2:]
        out = await vg.ok("set_task_status", path=daily, line=water["line"], status="-",
                          expected_text=water["text"], date="2023-09-12")  # fmt: skip
        assert out["next_occurrence"] is None and out["status_type"] == "cancelled"
        out = await vg.ok("set_task_status", path=daily, line=review["line"], status="x",
                          expected_text=review["text"], date="2023-09-12")  # fmt: skip
        assert out["next_occurrence"] == "review notes 🔁 every month 📅 2023-10-12"
        lines = vg.read(daily).rstrip("\n").split("\n")
        assert lines[-3:] == [
            "- [-] water plants 🔁 every week 📅 2023-09-12 ❌ 2023-09-12",
            "- [ ] review notes 🔁 every month 📅 2023-10-12",
            "- [x] review notes 🔁 every month 📅 2023-09-12 ✅ 2023-09-12",
        ]
