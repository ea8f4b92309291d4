"""Task lines: Tasks plugin fields in both formats, and edits that touch only what they change."""

from __future__ import annotations

from service.markdown.parse import parse_note
from service.markdown.tasks import parse_fields, set_field, status_table, status_type, task_line


def test_emoji_fields() -> None:
    f = parse_fields("plan #work ⏫ 🔁 every week when done ➕ 2026-01-01 🛫 2026-01-02 ⏳ 2026-01-03 📅 2026-01-04 "
                     "✅ 2026-01-05 ❌ 2026-01-06 🆔 abc1 ⛔ x1,y2 🏁 delete ^blk")  # fmt: skip
    assert (f.created, f.start, f.scheduled, f.due, f.done, f.cancelled) == (
        "2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05", "2026-01-06"
    )  # fmt: skip
    assert (f.priority, f.recurrence, f.id, f.depends_on, f.on_completion) == (
        "high", "every week when done", "abc1", ("x1", "y2"), "delete"
    )  # fmt: skip
    assert f.style == "emoji" and f.description == "plan #work" and f.tags == ("work",)
    for emoji, level in (("🔺", "highest"), ("🔼", "medium"), ("🔽", "low"), ("⏬", "lowest")):
        assert parse_fields(f"x {emoji}").priority == level
    assert parse_fields("x ⌛ 2026-02-02").scheduled == "2026-02-02"  # the plugin's alternative hourglass


def test_dataview_fields_in_brackets_and_parentheses() -> None:
    # `[other:: kept]` stands before the fields: the Tasks plugin reads fields from the end of the
    # line and stops at the first text that is none (s74: it was last, and every field was read).
    f = parse_fields(
        "pay [other:: kept] [due:: 2026-11-30] (scheduled:: 2026-11-28) [priority:: highest] [repeat:: every month] "
        "[completion:: 2026-11-29] [id:: p1] [dependsOn:: a, b] [created:: 2026-11-01]"
    )
    assert (f.due, f.scheduled, f.done, f.created, f.priority, f.recurrence, f.id, f.depends_on) == (
        "2026-11-30", "2026-11-28", "2026-11-29", "2026-11-01", "highest", "every month", "p1", ("a", "b")
    )  # fmt: skip
    assert f.style == "dataview" and f.description == "pay [other:: kept]"
    assert parse_fields("pay [due:: 2026-11-30] [other:: kept]").due is None  # after a non-field: description
    assert parse_fields("x [due:: tomorrow]").due is None  # not a date: not a due date


def test_set_field_keeps_place_format_and_block_id() -> None:
    assert set_field("a 📅 2026-01-01 ^id", "done", "2026-01-02", "emoji") == "a 📅 2026-01-01 ✅ 2026-01-02 ^id"
    assert set_field("a b (due:: 2026-01-01)", "due", "2026-02-02", "dataview") == "a b (due:: 2026-02-02)"
    # a field in the middle of the text is description to the Tasks plugin: setting one appends it (s74)
    assert (
        set_field("a (due:: 2026-01-01) b", "due", "2026-02-02", "dataview")
        == "a (due:: 2026-01-01) b [due:: 2026-02-02]"
    )
    assert set_field("a ✅ 2026-01-02 📅 2026-01-01", "done", None, "emoji") == "a 📅 2026-01-01"
    assert set_field("a [completion:: 2026-01-02]", "done", None, "dataview") == "a"


def test_task_lines_round_trip_and_code_blocks_hold_no_tasks() -> None:
    for line in ("- [ ] a", "  * [x] b ✅ 2026-01-01", "1. [/] c", "> - [-] quoted", "+ [?] custom"):
        task = task_line(line)
        assert task is not None and str(task) == line
    assert task_line("- [] not a task") is None and task_line("[ ] no bullet") is None
    text = (
        "- [ ] real\n  - [ ] nested\n```\n- [ ] code\n```\n~~~md\n- [ ] tilde\n~~~\n> ```\n> - [ ] quoted code\n> ```\n"
    )
    assert [t.text for t in parse_note("n.md", text).tasks] == ["real", "nested"]


def test_status_types_include_custom_statuses() -> None:
    # the plugin's settings list its default custom statuses `/` and `-` unless the user deleted them
    table = status_table({"statusSettings": {"customStatuses": [
        {"symbol": "/", "name": "In Progress", "nextStatusSymbol": "x", "type": "IN_PROGRESS"},
        {"symbol": "-", "name": "Cancelled", "nextStatusSymbol": " ", "type": "CANCELLED"},
        {"symbol": "!", "name": "Important", "nextStatusSymbol": "x", "type": "TODO"},
        {"symbol": "d", "name": "Delegated", "nextStatusSymbol": " ", "type": "DONE"},
        {"symbol": "~", "name": "Note", "nextStatusSymbol": "~", "type": "NON_TASK"},
    ]}})  # fmt: skip
    assert [status_type(table, s) for s in " x/-!d~?"] == [
        "todo", "done", "in_progress", "cancelled", "todo", "done", "non_task", "todo"
    ]  # fmt: skip
    # deleted from the settings, `/` and `-` are Unknown to the plugin: to do (s74; they stayed typed)
    table = status_table({"statusSettings": {"customStatuses": [{"symbol": "d", "name": "D", "type": "DONE"}]}})
    assert [status_type(table, s) for s in " x/-d"] == ["todo", "done", "todo", "todo", "done"]
    assert status_type(status_table({}), "/") == "in_progress"  # no status settings: the plugin's defaults
