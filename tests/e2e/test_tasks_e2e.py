"""Tasks, periodic notes and templates over real HTTP and stdio with the SDK client."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from mcp import Client, StdioServerParameters

from tests.conftest import e2e
from tests.e2e.calls import error, ok

FILES = {
    "Todo.md": "# Todo\n\n- [ ] water plants 🔁 every 3 days 📅 2026-11-24\n- [ ] file taxes [due:: 2027-04-15]\n",
    "Templates/Day.md": "---\ntags: [daily]\n---\n# {{title}}\n\n## Log\n",
    ".obsidian/daily-notes.json": json.dumps({"folder": "Daily", "template": "Templates/Day"}),
    ".obsidian/templates.json": json.dumps({"folder": "Templates"}),
}


async def test_tasks_periodic_notes_and_templates_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            tasks = await ok(client, "list_tasks", sort="due")
            assert [t["due"] for t in tasks["items"]] == ["2026-11-24", "2027-04-15"]
            first = tasks["items"][0]
            done = await ok(client, "set_task_status", path=first["path"], line=first["line"], status="x",
                            expected_text=first["text"], date="2026-11-24")  # fmt: skip
            assert done["next_occurrence"] == "water plants 🔁 every 3 days 📅 2026-11-27" and done["line"] == 4
            stale = await error(client, "set_task_status", path="Todo", line=3, status="x", expected_text=first["text"])
            assert stale["code"] == "conflict"
            day = await ok(client, "get_periodic_note", date="2026-11-24")
            assert day["path"] == "Daily/2026-11-24.md" and not day["exists"]
            await ok(client, "create_periodic_note", date="2026-11-24")
            await ok(
                client, "append_to_periodic_note", date="2026-11-24", content="- walked", heading=["2026-11-24", "Log"]
            )
            templates = await ok(client, "list_templates")
            assert [t["path"] for t in templates["items"]] == ["Templates/Day.md"]
            made = await ok(client, "apply_template", template="Day", path="Notes/Idea")
            assert made["created"] and made["obsidian_url"].startswith("obsidian://open?")
            tagged = await ok(
                client, "add_tags", path="Notes/Idea", tags=["idea"], inline=True, heading=["Idea", "Log"]
            )
            assert tagged["changed"]
            assert (await error(client, "apply_template", template="Nope", path="X"))["code"] == "note_not_found"
        assert harness.read("Daily/2026-11-24.md") == "---\ntags: [daily]\n---\n# 2026-11-24\n\n## Log\n- walked\n"
        assert harness.read("Notes/Idea.md") == "---\ntags: [daily]\n---\n# Idea\n\n## Log\n#idea\n"


async def test_tasks_over_stdio(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(FILES)
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)])
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        # set_task_status reads the note itself (no index needed: the server may still be indexing)
        taxes = "file taxes [due:: 2027-04-15]"
        await ok(client, "set_task_status", path="Todo", line=4, status="x", expected_text=taxes, date="2026-11-24")
        assert (await error(client, "get_periodic_note", period="hourly"))["code"] == "validation_error"
    assert "- [x] file taxes [due:: 2027-04-15] [completion:: 2026-11-24]\n" in (root / "Todo.md").read_text()


PLUGIN_FILES = {
    "Todo.md": "- [ ] stretch 🔁 every day 📅 2026-11-24\n",
    "T/Day.md": "# {{title}}\n[[{{yesterday}}]] | [[{{tomorrow}}]]\n",
    "T/Week.md": "# {{title}}\n{{monday:D MMM}} – {{sunday:D MMM}}\n",
    ".obsidian/plugins/periodic-notes/data.json": json.dumps({
        "daily": {"enabled": True, "format": "YYYY-MM-DD", "folder": "Days", "template": "T/Day"},
        "weekly": {"enabled": True, "format": "gggg-[W]ww", "folder": "Weeks", "template": "T/Week"},
    }),
    ".obsidian/plugins/calendar/data.json": json.dumps({"weekStart": "monday", "localeOverride": "en-gb"}),
}  # fmt: skip


async def test_plugin_templates_week_rules_and_cancelling_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(PLUGIN_FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            await ok(client, "create_periodic_note", date="2026-11-24")
            week = await ok(client, "create_periodic_note", period="weekly", date="2026-11-29")
            assert week["path"] == "Weeks/2026-W48.md" and week["period_start"] == "2026-11-23"
            cancelled = await ok(client, "set_task_status", path="Todo", line=1, status="-",
                                 expected_text="stretch 🔁 every day 📅 2026-11-24", date="2026-11-24")  # fmt: skip
            assert cancelled["next_occurrence"] is None and cancelled["status_type"] == "cancelled"
        assert harness.read("Days/2026-11-24.md") == "# 2026-11-24\n[[2026-11-23]] | [[2026-11-25]]\n"
        assert harness.read("Weeks/2026-W48.md") == "# 2026-W48\n23 Nov – 29 Nov\n"
        assert harness.read("Todo.md") == "- [-] stretch 🔁 every day 📅 2026-11-24 ❌ 2026-11-24\n"


async def test_list_tasks_refuses_an_impossible_date_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            refused = await error(client, "list_tasks", due_before="2026-02-30")
            assert refused["code"] == "validation_error" and refused["details"]["field"] == "due_before"
