"""list_tasks (the index's task rows) and search_dql (Dataview's file.tasks) read tasks with one
parser (service.markdown.parse list items, fields by service.markdown.tasks): on the same vault
they see the same tasks, with the same line, text, status, section, tags and dates, in both the
emoji and the inline-field formats, inside callouts too, and never inside code."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

VAULT = {
    "Plans.md": (
        "---\ntags: [plan]\n---\n"
        "# Week\n"
        "- [ ] call the bank 📅 2026-11-30 #errand ^call\n"
        "    - [x] find the number ✅ 2026-11-20 ⏳ 2026-11-19\n"
        "    - a plain item, no task\n"
        "- [/] draft the report [due:: 2026-12-01] [start:: 2026-11-25] #work\n"
        "1. [x] numbered and done [completion:: 2026-11-21] ➕ 2026-11-01\n"
        "## Later\n"
        "> [!todo] Callout\n"
        "> - [ ] quoted task 🛫 2026-12-02 #home\n"
        "```\n- [ ] not a task: code\n```\n"
        "- [ ] run `make test` before 📅 2026-12-03\n"
        "- [-] dropped\n"
    ),
    "Other.md": "Some text\n- [ ] lone task [scheduled:: 2026-12-05]\n",
}


def _dates(task: dict[str, Any]) -> dict[str, str]:
    names = {"due": "due", "done": "completion", "start": "start", "scheduled": "scheduled", "created": "created"}
    return {dv: task[name] for name, dv in names.items() if task.get(name)}


async def test_list_tasks_and_dataview_tasks_agree(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        listed = (await vg.ok("list_tasks", sort="path", limit=100))["items"]
        query = (
            "TABLE WITHOUT ID t.line, t.text, t.status, t.completed, t.checked, meta(t.section).subpath, t.tags, "
            "t.due, t.completion, t.start, t.scheduled, t.created FLATTEN file.tasks AS t SORT file.path, t.line"
        )
        table = await vg.ok("search_dql", query=query, limit=100)
        rows = [[c["value"] for c in r["cells"]] for r in table["rows"]]
        tasks = await vg.ok("search_dql", query="TASK SORT file.path", limit=100)

    by_list = sorted((t["path"], t["line"] - 1) for t in listed)  # list_tasks: 1-based lines
    by_dql = sorted((t["path"], t["line"]) for t in tasks["rows"])
    assert by_list == by_dql and len(by_list) == 8  # the code block's task is in neither
    assert ("Plans.md", 11) in by_dql  # the callout's task is in both

    listed.sort(key=lambda t: (t["path"], t["line"]))
    for task, row in zip(listed, rows, strict=True):
        line, text, status, completed, checked, section, tags, *dates = row
        assert (line, text, status) == (task["line"] - 1, task["text"], task["status"])
        assert completed is (task["status"] in "xX") and checked is (task["status"] != " ")
        assert section == task["heading"]
        assert sorted(t.lstrip("#") for t in tags) == sorted(task["tags"])
        dv_dates = dict(zip(("due", "completion", "start", "scheduled", "created"), dates, strict=True))
        assert {k: v[:10] for k, v in dv_dates.items() if v} == _dates(task), task["text"]

    code = next(t for t in listed if t["text"].startswith("run"))
    assert code["text"] == "run `make test` before 📅 2026-12-03" and code["due"] == "2026-12-03"
    first = next(t for t in tasks["rows"] if t["line"] == 4)
    assert first["fields"]["due"] == {"type": "date", "value": "2026-11-30"}
