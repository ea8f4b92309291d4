"""Tasks query instructions users copy from the plugin's documentation, through the dispatcher
(found in session 73 by reading the plugin's docs/Queries against tasks_filter):

- `due in or before <range>` / `in or after`: refused ('cannot read "or before next week" as a
  date'); they keep the range's last day and before / its first day and after.
- days in words, `25th May 2023`, `May 25, 2023`, `14 October`, `May`: refused as no date.
- placeholders, `path includes {{query.file.path}}` (the plugin's "tasks in this file" recipe): read
  as the text '{{query.file.path}}', so the filter silently kept nothing. With `file` they expand;
  without it, or with an unknown name, the line is query_syntax_error naming it.
- presets, `preset this_file` and the Tasks settings' own presets: 'do not understand the filter';
  `query.file.folder` in an expression (the preset this_folder_only): "'query' is not a name".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

TODAY = "2026-12-02"  # a Wednesday: this week runs 2026-11-30 to 2026-12-06, next week to 12-13
PLUGIN = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
DAILY = """# 2026-12-02

- [ ] daily one 📅 2026-12-13
- [ ] daily two 📅 2026-12-14
- [x] daily done ✅ 2026-12-01
"""
WORK = """# Plan

- [ ] spring plan 📅 2023-05-25
- [ ] autumn plan 📅 2026-10-14
- [ ] may day [due:: 2026-05-01]
- [/] this week 📅 2026-12-03
"""
FILES = {
    "Journal/Daily/2026-12-02.md": DAILY,
    "Journal/Notes.md": "- [ ] journal note 📅 2026-12-20\n",
    "Work/Plan.md": WORK,
}


async def described(vg: Harness, query: str, **args: Any) -> list[str]:
    out = await vg.ok("tasks_filter", query=query, today=TODAY, limit=500, **args)
    return sorted(i["description"] for i in out["items"])


async def test_in_or_before_and_in_or_after_a_range(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        assert await described(vg, "due in or before next week\nnot done") == [
            "autumn plan", "daily one", "may day", "spring plan", "this week",
        ]  # fmt: skip
        assert await described(vg, "due in or after next week") == ["daily one", "daily two", "journal note"]
        out = await vg.ok("tasks_filter", query="due in or after next week\nexplain", today=TODAY)
        assert out["explain"] == ["due date on or after 2026-12-07"]


async def test_days_written_in_words(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        assert await described(vg, "due on 25th May 2023") == ["spring plan"]
        assert await described(vg, "due May 25, 2023") == ["spring plan"]
        assert await described(vg, "due on 14 October") == ["autumn plan"]  # this year's
        assert await described(vg, "due May") == ["may day"]  # a month alone: its first day
        err = await vg.err("tasks_filter", "query_syntax_error", query="due on 30th February 2023", today=TODAY)
        assert err["details"]["line"] == 1 and "30th February 2023" in err["message"]


async def test_query_file_placeholders_and_presets(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        daily = "Journal/Daily/2026-12-02.md"
        assert await described(vg, "path includes {{query.file.path}}", file=daily) == [
            "daily done", "daily one", "daily two",
        ]  # fmt: skip
        assert await described(vg, "preset this_file\nnot done", file="2026-12-02") == ["daily one", "daily two"]
        assert await described(vg, "root includes {{query.file.root}}\nno due date", file=daily) == ["daily done"]
        assert await described(vg, "folder includes {{query.file.folder}}\nnot done", file="Journal/Notes") == [
            "daily one", "daily two", "journal note",
        ]  # fmt: skip
        # a daily note's name as a date, the plugin's 'overdue' recipe
        query = "not done\nhappens before {{query.file.filenameWithoutExtension}}"
        assert await described(vg, query, file=daily) == ["autumn plan", "may day", "spring plan"]
        assert await described(vg, "({{preset.this_root}}) AND (done)", file=daily) == ["daily done"]
        # `query.file.*` in an expression (the preset this_folder_only): the folder itself, not below it
        assert await described(vg, "preset this_folder_only", file="Journal/Notes") == ["journal note"]
        query = "filter by function task.file.path !== query.file.path\nnot done\nroot includes Journal"
        assert await described(vg, query, file=daily) == ["journal note"]
        assert await described(vg, "description includes plan {{! a comment }}") == ["autumn plan", "spring plan"]

        # no file: the placeholder is named, never looked for as text
        err = await vg.err("tasks_filter", "query_syntax_error", query="not done\npath includes {{query.file.path}}")
        assert err["details"]["line"] == 2 and err["details"]["column"] == 15 and "`file`" in err["message"]
        err = await vg.err("tasks_filter", "query_syntax_error", query="preset this_folder")
        assert "no file was given" in err["message"]
        err = await vg.err("tasks_filter", "query_syntax_error", query="preset this_folder_only")
        assert "'query.file.folder' needs the note the query is in" in err["message"]
        err = await vg.err("tasks_filter", "query_syntax_error", query="filename includes {{query.file.fileName}}",
                           file=daily)  # fmt: skip
        assert "unknown property 'query.file.fileName'" in err["message"]
        err = await vg.err("tasks_filter", "query_syntax_error", query="preset nope", file=daily)
        assert "cannot find preset 'nope'" in err["message"] and "this_file" in err["message"]
        out = await vg.ok("tasks_filter", query="preset hide_everything\nnot done", today=TODAY)
        assert out["total"] == 7 and "hide due date" in out["ignored"]
        await vg.err("tasks_filter", "note_not_found", query="preset this_file", file="No/Such note")


async def test_presets_of_the_tasks_settings(make_vault: Callable[..., Path]) -> None:
    presets = {"presets": {"planning": "not done\npath includes Work", "mine": "{{preset.planning}}\nhas due date"}}
    async with started(make_vault({**FILES, PLUGIN: json.dumps(presets)})) as vg:
        await vg.indexed()
        assert len(await described(vg, "preset planning")) == 4
        assert await described(vg, "preset mine\ndue after 2026-06-01") == ["autumn plan", "this week"]
        err = await vg.err("tasks_filter", "query_syntax_error", query="preset this_file", file="Work/Plan")
        assert "cannot find preset 'this_file'" in err["message"]  # the settings' presets replace the defaults


async def test_the_filename_as_scheduled_date_setting(make_vault: Callable[..., Path]) -> None:
    """The plugin's "use filename as Scheduled date for undated tasks": an undated task of a note
    named by a date is scheduled on it for every query. Before, `scheduled on 2026-12-02` found
    nothing in a vault with it on (the Tasks docs' daily-note recipe), silently."""
    settings = {"useFilenameAsScheduledDate": True, "filenameAsDateFolders": ["Journal"]}
    files = {
        **FILES,
        "Journal/20261201 standup.md": "- [ ] undated standup\n",
        "Journal/Week.md": "- [ ] no date in the name\n",
        "Work/2026-11-30 review.md": "- [ ] outside the folders\n",
        PLUGIN: json.dumps(settings),
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        assert await described(vg, "scheduled on 2026-12-02") == ["daily done"]  # the dated ones keep none
        assert await described(vg, "happens before today\nnot done\npath includes Journal") == ["undated standup"]
        out = await vg.ok("tasks_filter", query="has scheduled date\ngroup by scheduled", today=TODAY)
        assert [(g["names"], g["count"]) for g in out["groups"]] == [
            (["2026-12-01 Tuesday"], 1), (["2026-12-02 Wednesday"], 1),
        ]  # fmt: skip
        assert [i["scheduled"] for i in out["items"]] == ["2026-12-01", "2026-12-02"]
        settings["filenameAsScheduledDateFormat"] = "YYYYMMDD [standup]"
        settings["filenameAsDateFolders"] = []
        (vg.root / PLUGIN).write_text(json.dumps(settings), encoding="utf-8")
        assert await described(vg, "scheduled on 2026-11-30") == ["outside the folders"]
        assert await described(vg, "scheduled on 2026-12-01") == ["undated standup"]


async def test_sort_by_random_is_the_plugins_order_of_the_day(make_vault: Callable[..., Path]) -> None:
    """`sort by random` was refused ('sort by takes one of …'). The plugin orders by a hash of the
    day and the description (RandomField.ts); the orders below are what its hash gives (node)."""
    note = "".join(f"- [ ] {name}\n" for name in ("alpha", "bravo", "charlie", "delta", "echo"))
    async with started(make_vault({"R.md": note})) as vg:
        await vg.indexed()
        out = await vg.ok("tasks_filter", query="sort by random", today="2026-12-02")
        assert [i["description"] for i in out["items"]] == ["bravo", "alpha", "charlie", "echo", "delta"]
        out = await vg.ok("tasks_filter", query="sort by random", today="2026-12-03")
        assert [i["description"] for i in out["items"]] == ["charlie", "echo", "bravo", "delta", "alpha"]
        out = await vg.ok("tasks_filter", query="sort by random reverse\nlimit 2", today="2026-12-03")
        assert [i["description"] for i in out["items"]] == ["alpha", "delta"]


async def test_query_note_properties_and_query_file_defaults(make_vault: Callable[..., Path]) -> None:
    """With `file`, the query note's properties are read as the plugin reads them: its
    `{{query.file.property('x')}}` / `hasProperty` placeholders (Tasks 7.15; before: refused) and its
    Query File Defaults, `TQ_extra_instructions` and `TQ_explain` put before every query of the note
    (before: silently left out, so `not done` there kept done tasks too)."""
    board = (
        "---\nsprint: plan\nowner: [Ann, null]\nTQ_extra_instructions: |-\n  not done\n  path includes Work\n"
        "TQ_explain: true\nTQ_show_tree: false\n---\n# Board\n"
    )
    async with started(make_vault({**FILES, "Boards/Board.md": board})) as vg:
        await vg.indexed()
        query = "description includes {{query.file.property('SPRINT')}}"
        out = await vg.ok("tasks_filter", query=query, file="Board", today=TODAY)
        assert sorted(i["description"] for i in out["items"]) == ["autumn plan", "spring plan"]
        assert out["explain"] == ["not done", "path includes Work", "description includes plan"]
        query = "filter by function task.description.includes(query.file.property('sprint'))"
        assert await described(vg, query, file="Board") == ["autumn plan", "spring plan"]
        err = await vg.err("tasks_filter", "query_syntax_error", query="path includes {{query.file.property('x')}}",
                           file="Board")  # fmt: skip
        assert "no such property" in err["message"] and err["details"]["column"] == 15
        bad = board.replace("path includes Work", "due someday")
        (vg.root / "Boards/Board.md").write_text(bad, encoding="utf-8")
        err = await vg.err("tasks_filter", "query_syntax_error", query="not done", file="Board")
        assert "TQ_* properties" in err["message"] and err["details"]["text"] == "due someday"
        assert (await vg.ok("tasks_filter", query="done", today=TODAY))["total"] == 1  # no file: no defaults


async def test_task_file_properties_in_expressions(make_vault: Callable[..., Path]) -> None:
    """`task.file.property('x')` / `task.file.hasProperty('x')` (the plugin's Obsidian Properties
    in expressions) were refused ('.property() is not a method this server provides')."""
    files = {
        "A.md": "---\nstatus: active\nOwner: [Ann, null]\n---\n- [ ] a one\n- [x] a two\n",
        "B.md": "---\nstatus: parked\n---\n- [ ] b one\n",
        "C.md": "- [ ] c one\n",
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        assert await described(vg, "filter by function task.file.property('STATUS') === 'active'") == [
            "a one", "a two",
        ]  # fmt: skip
        assert await described(vg, "not done\nfilter by function task.file.hasProperty('status')") == [
            "a one", "b one",
        ]  # fmt: skip
        query = "filter by function task.file.property('owner')?.includes('Ann') ?? false"
        assert await described(vg, query) == ["a one", "a two"]
        query = "not done\n(filter by function task.file.property('status') === 'parked') OR (path includes C)"
        assert await described(vg, query) == ["b one", "c one"]
        out = await vg.ok("tasks_filter", query="group by function task.file.property('status') ?? 'none'")
        assert [(g["names"], g["count"]) for g in out["groups"]] == [(["active"], 2), (["none"], 1), (["parked"], 1)]
        err = await vg.err("tasks_filter", "query_syntax_error", query="filter by function task.file.property(3)")
        assert "takes one property name" in err["message"]


async def test_the_global_filter_is_no_tag_and_not_searched_in_descriptions(make_vault: Callable[..., Path]) -> None:
    """With a global filter (`#task`), the plugin drops it from a task's tags and `description`
    filters search the description without it (Filters.md: "disregards the global filter";
    Task.ts, DescriptionField.value). tasks_filter kept it: `tags include task` and `description
    includes task` matched every task, `no tags` missed `#task only`, `group by tags` had a #task group."""
    note = "- [ ] #task Do stuff ⏫ #tag1\n- [ ] #task only\n- [ ] no filter here #tag1\n- [ ] #tasks plural\n"
    settings = {"globalFilter": "#task"}
    async with started(make_vault({"A.md": note, PLUGIN: json.dumps(settings)})) as vg:
        await vg.indexed()
        out = await vg.ok("tasks_filter", query="not done", today=TODAY)  # the first query: the index alone answers
        assert sorted(map(tuple, (i["tags"] for i in out["items"]))) == [(), ("tag1",), ("tasks",)]
        assert await described(vg, "description includes task") == []  # '#tasks plural' is searched as 's plural'
        assert await described(vg, "description regex matches /^Do/") == ["#task Do stuff #tag1"]
        assert await described(vg, "tags include task") == ["#tasks plural"]
        assert await described(vg, "no tags") == ["#task only"]
        out = await vg.ok("tasks_filter", query="group by tags", today=TODAY)
        assert [g["names"] for g in out["groups"]] == [["(No tags)"], ["#tag1"], ["#tasks"]]  # the plugin's order (s76)
        assert [i["tags"] for i in out["items"]] == [[], ["tag1"], ["tasks"]]
        out = await vg.ok("tasks_filter", query="not done\nsort by description", today=TODAY)
        assert [i["description"] for i in out["items"]] == ["#task Do stuff #tag1", "#task only", "#tasks plural"]


async def test_javascript_regex_flags_the_plugin_accepts(make_vault: Callable[..., Path]) -> None:
    """The plugin hands `/pattern/flags` to JavaScript's RegExp, so `/plan/gi` (written by habit)
    works there; tasks_filter refused `g` and `u` ('unknown regular-expression flag')."""
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        assert await described(vg, "description regex matches /PLAN/gi") == ["autumn plan", "spring plan"]
        assert await described(vg, "description regex matches /^may/u") == ["may day"]
        err = await vg.err("tasks_filter", "query_syntax_error", query="description regex matches /plan/y")
        assert "'y' is not read here" in err["message"]
