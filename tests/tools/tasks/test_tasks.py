"""list_tasks and set_task_status through the full dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

NOTE = """---
tags: [work]
---
# Work

- [ ] write report 📅 2026-11-30 ⏫ #proj/alpha
- [x] send invoice 📅 2026-11-01 ✅ 2026-11-02
- [/] draft plan [due:: 2026-12-05] [priority:: high]
- [-] old idea ❌ 2026-10-01

## Later

- [ ] call Ann (scheduled:: 2026-12-01)
- [?] custom status
1. [ ] numbered ⏳ 2026-11-20 🛫 2026-11-18

```
- [ ] not a task: in a code block
```
> - [ ] quoted task 📅 2026-11-29
"""

HOME = """# Home

- [ ] take out the trash 🔁 every Sunday 📅 2021-04-25 ^trash
- [ ] pay rent [repeat:: every month on the 1st] [due:: 2026-12-01]
- [ ] sweep 🔁 every week when done ⏳ 2021-02-06
- [ ] mow 🔁 every 2 weeks ⏳ 2021-10-28 📅 2021-10-30 ➕ 2021-10-01
- [ ] stretch 🔁 every day
- [ ] odd 🔁 every blue moon 📅 2026-01-01
"""


@pytest.fixture
def files() -> dict[str, str]:
    return {"Work.md": NOTE, "Home.md": HOME, "Private/Secret.md": "- [ ] hidden 📅 2026-11-01\n"}


@pytest.mark.covers("list_tasks", "success")
async def test_list_tasks_reads_both_formats_and_skips_code(
    make_vault: Callable[..., Path], files: dict[str, str]
) -> None:
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("list_tasks", note="Work", limit=50)
    items = out["items"]
    texts = [i["description"] for i in items]
    assert "not a task: in a code block" not in " ".join(texts)
    assert out["total"] == len(items) == 8
    first = items[0]
    assert first["line"] == 6 and first["status_type"] == "todo" and first["due"] == "2026-11-30"
    assert first["priority"] == "high" and first["tags"] == ["proj/alpha"] and first["heading"] == "Work"
    assert first["obsidian_url"].startswith("obsidian://open?") and first["description"] == "write report #proj/alpha"
    draft = next(i for i in items if i["status"] == "/")
    assert draft["due"] == "2026-12-05" and draft["priority"] == "high" and draft["status_type"] == "in_progress"
    ann = next(i for i in items if i["description"].startswith("call Ann"))
    assert ann["scheduled"] == "2026-12-01" and ann["heading"] == "Later"
    assert next(i for i in items if i["status"] == "-")["cancelled"] == "2026-10-01"
    assert next(i for i in items if i["status"] == "?")["status_type"] == "todo"
    assert any(i["description"] == "quoted task" for i in items)


async def test_list_tasks_filters_sorts_and_pages(make_vault: Callable[..., Path], files: dict[str, str]) -> None:
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        due = await vg.ok("list_tasks", due_before="2026-12-01", due_after="2026-01-01", status=["open"], sort="due")
        assert [i["due"] for i in due["items"]] == ["2026-11-01", "2026-11-29", "2026-11-30"]
        assert due["items"][0]["path"] == "Private/Secret.md"
        assert [i["description"] for i in (await vg.ok("list_tasks", tag="proj"))["items"]] == [
            "write report #proj/alpha"
        ]
        assert (await vg.ok("list_tasks", status=["done"]))["total"] == 1
        assert (await vg.ok("list_tasks", priority=["high"], sort="priority"))["total"] == 2
        assert (await vg.ok("list_tasks", text="ANN"))["items"][0]["line"] == 13
        assert (await vg.ok("list_tasks", folder="Private"))["total"] == 1
        rec = await vg.ok("list_tasks", note="Home", has_due=True)
        assert (
            rec["items"][0]["recurrence"] == "every Sunday"
            and rec["items"][1]["recurrence"] == "every month on the 1st"
        )
        nodate = await vg.ok("list_tasks", no_date=True, note="Home")
        assert [i["description"] for i in nodate["items"]] == ["stretch"]
        page1 = await vg.ok("list_tasks", limit=5)
        page2 = await vg.ok("list_tasks", limit=5, cursor=page1["next_cursor"])
        whole = await vg.ok("list_tasks", limit=500)
        assert (
            page1["items"] + page2["items"] + (await vg.ok("list_tasks", limit=5, cursor=page2["next_cursor"]))["items"]
            == whole["items"]
        )
        await vg.err("list_tasks", "validation_error", limit=5, cursor=page1["next_cursor"], text="x")


async def test_list_tasks_hides_notes_the_acl_denies(make_vault: Callable[..., Path], files: dict[str, str]) -> None:
    async with started(make_vault(files), acl={"prefix_rules": [{"path": "Private", "read": "deny"}]}) as vg:
        await vg.indexed()
        out = await vg.ok("list_tasks", due_before="2026-11-02", due_after="2026-01-01")
        assert [i["path"] for i in out["items"]] == ["Work.md"] and out["total"] == 1
        await vg.err("list_tasks", "acl_denied", folder="Private")


@pytest.mark.covers("list_tasks", "failure")
async def test_list_tasks_refuses_bad_filters(make_vault: Callable[..., Path], files: dict[str, str]) -> None:
    async with started(make_vault(files)) as vg:
        await vg.err("list_tasks", "validation_error", due_before="30/11/2026")
        await vg.err("list_tasks", "validation_error", status_char=["xx"])
        await vg.err("list_tasks", "note_not_found", note="Nowhere")


@pytest.mark.covers("set_task_status", "success")
async def test_completing_stamps_the_done_date_in_the_tasks_own_format(
    make_vault: Callable[..., Path], files: dict[str, str]
) -> None:
    async with started(make_vault(files)) as vg:
        out = await vg.ok(
            "set_task_status",
            path="Work",
            line=6,
            status="x",
            expected_text="write report 📅 2026-11-30 ⏫ #proj/alpha",
            date="2026-11-24",
        )
        assert out["line"] == 6 and out["status_type"] == "done" and out["next_occurrence"] is None
        assert vg.read("Work.md").split("\n")[5] == "- [x] write report 📅 2026-11-30 ⏫ #proj/alpha ✅ 2026-11-24"
        etag = out["etag"]
        out = await vg.ok("set_task_status", path="Work", line=8, status="x", expected_etag=etag, date="2026-11-24")
        assert (
            vg.read("Work.md").split("\n")[7]
            == "- [x] draft plan [due:: 2026-12-05] [priority:: high] [completion:: 2026-11-24]"
        )
        # back to to-do removes the done date; cancelling stamps a cancelled date
        await vg.ok(
            "set_task_status", path="Work", line=7, status=" ", expected_text="send invoice 📅 2026-11-01 ✅ 2026-11-02"
        )
        assert vg.read("Work.md").split("\n")[6] == "- [ ] send invoice 📅 2026-11-01"
        await vg.ok(
            "set_task_status",
            path="Work",
            line=13,
            status="-",
            expected_text="call Ann (scheduled:: 2026-12-01)",
            date="2026-11-24",
        )
        assert vg.read("Work.md").split("\n")[12] == "- [-] call Ann (scheduled:: 2026-12-01) [cancelled:: 2026-11-24]"


async def test_completing_a_recurring_task_inserts_the_next_occurrence_above(
    make_vault: Callable[..., Path], files: dict[str, str]
) -> None:
    async with started(make_vault(files)) as vg:
        out = await vg.ok(
            "set_task_status",
            path="Home",
            line=3,
            status="x",
            expected_text="take out the trash 🔁 every Sunday 📅 2021-04-25 ^trash",
            date="2021-04-24",
        )
        lines = vg.read("Home.md").split("\n")
        assert lines[2:4] == [
            "- [ ] take out the trash 🔁 every Sunday 📅 2021-05-02",
            "- [x] take out the trash 🔁 every Sunday 📅 2021-04-25 ✅ 2021-04-24 ^trash",
        ]
        assert out["line"] == 4 and out["next_occurrence"] == "take out the trash 🔁 every Sunday 📅 2021-05-02"
        await vg.ok(
            "set_task_status",
            path="Home",
            line=5,
            status="x",
            expected_text="pay rent [repeat:: every month on the 1st] [due:: 2026-12-01]",
            date="2026-11-24",
        )
        lines = vg.read("Home.md").split("\n")
        assert lines[4:6] == [
            "- [ ] pay rent [repeat:: every month on the 1st] [due:: 2027-01-01]",
            "- [x] pay rent [repeat:: every month on the 1st] [due:: 2026-12-01] [completion:: 2026-11-24]",
        ]
        await vg.ok(
            "set_task_status",
            path="Home",
            line=7,
            status="x",
            expected_text="sweep 🔁 every week when done ⏳ 2021-02-06",
            date="2022-02-13",
        )
        assert vg.read("Home.md").split("\n")[6] == "- [ ] sweep 🔁 every week when done ⏳ 2022-02-20"
        await vg.ok(
            "set_task_status",
            path="Home",
            line=9,
            status="x",
            expected_text="mow 🔁 every 2 weeks ⏳ 2021-10-28 📅 2021-10-30 ➕ 2021-10-01",
            date="2021-10-29",
        )
        # The created date goes (the plugin's setCreatedDate is off by default; see test_task_settings).
        assert vg.read("Home.md").split("\n")[8] == "- [ ] mow 🔁 every 2 weeks ⏳ 2021-11-11 📅 2021-11-13"
        await vg.ok(
            "set_task_status", path="Home", line=11, status="x", expected_text="stretch 🔁 every day", date="2021-10-29"
        )
        assert vg.read("Home.md").split("\n")[10:12] == [
            "- [ ] stretch 🔁 every day",
            "- [x] stretch 🔁 every day ✅ 2021-10-29",
        ]


@pytest.mark.covers("set_task_status", "failure")
async def test_set_task_status_refuses_unguarded_moved_or_unknown_and_changes_nothing(
    make_vault: Callable[..., Path], files: dict[str, str]
) -> None:
    async with started(make_vault(files)) as vg:
        before = vg.snapshot()
        await vg.err("set_task_status", "validation_error", path="Work", line=6, status="x")
        error = await vg.err(
            "set_task_status",
            "conflict",
            path="Work",
            line=7,
            status="x",
            expected_text="write report 📅 2026-11-30 ⏫ #proj/alpha",
        )
        assert error["details"]["now_at_line"] == 6
        await vg.err("set_task_status", "conflict", path="Work", line=6, status="x", expected_etag="0" * 32)
        error = await vg.err(
            "set_task_status",
            "validation_error",
            path="Work",
            line=18,
            status="x",
            expected_text="not a task: in a code block",
        )
        assert error["details"]["reason"] == "not_a_task"
        await vg.err("set_task_status", "validation_error", path="Work", line=999, status="x", expected_text="x")
        error = await vg.err(
            "set_task_status",
            "validation_error",
            path="Home",
            line=8,
            status="x",
            expected_text="odd 🔁 every blue moon 📅 2026-01-01",
        )
        assert error["details"]["reason"] == "unsupported_recurrence"
        await vg.err("set_task_status", "validation_error", path="Work", line=6, status="xx", expected_text="a")
        await vg.err("set_task_status", "note_not_found", path="Nope", line=1, status="x", expected_text="a")
        assert vg.snapshot() == before


async def test_set_task_status_needs_read_access_too(make_vault: Callable[..., Path], files: dict[str, str]) -> None:
    async with started(make_vault(files), acl={"prefix_rules": [{"path": "Private", "read": "deny"}]}) as vg:
        before = vg.snapshot()
        await vg.err(
            "set_task_status",
            "acl_denied",
            path="Private/Secret.md",
            line=1,
            status="x",
            expected_text="hidden 📅 2026-11-01",
        )
        assert vg.snapshot() == before


@pytest.mark.covers("set_task_status", "failure")
async def test_set_task_status_with_a_date_that_names_no_day_changes_nothing(make_vault: Callable[..., Path]) -> None:
    """Found by the fuzzing suite: a `date` of the right shape that names no day crashed the tool."""
    async with started(make_vault({"T.md": "- [ ] pay 🔁 every week 📅 2026-02-30\n"})) as vg:
        before = vg.snapshot()
        await vg.indexed()
        [task] = (await vg.ok("list_tasks", note="T"))["items"]
        guard = {"path": "T", "line": 1, "status": "x", "expected_text": task["text"]}
        await vg.err("set_task_status", "validation_error", **guard, date="2026-13-01")
        assert vg.snapshot() == before
        # a hand-typed due date that names no day is left as it is when the task recurs
        await vg.ok("set_task_status", **guard)
        assert vg.read("T.md").count("📅 2026-02-30") == 2  # the next occurrence and the done one


async def test_a_task_pushed_down_off_its_line_is_a_conflict_pointing_at_its_new_line(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Chores.md": "# Chores\n\nSome text.\n\n- [ ] water the plants\n"})) as vg:
        await vg.indexed()
        [task] = (await vg.ok("list_tasks", note="Chores"))["items"]
        await vg.ok("set_properties", path="Chores", properties={"owner": "me", "room": "kitchen"})
        before = vg.snapshot()
        guard = {"path": "Chores", "line": task["line"], "status": "x", "expected_text": task["text"]}
        error = await vg.err("set_task_status", "conflict", **guard)
        assert error["details"]["reason"] == "task_changed" and error["details"]["now_at_line"] == task["line"] + 4
        assert vg.snapshot() == before
        out = await vg.ok("set_task_status", **{**guard, "line": error["details"]["now_at_line"]})
        assert out["text"].startswith("water the plants")


async def test_a_task_moved_and_edited_since_it_was_listed_is_a_conflict(make_vault: Callable[..., Path]) -> None:
    """The task named by line and text moved down (a line written above it) and its text changed:
    its old line holds neither a task nor the text, which the description promises as `conflict`
    (it answered `validation_error` `not_a_task`, as for a line that never held a task)."""
    async with started(make_vault({"T.md": "# T\n\n- [ ] buy milk\n"})) as vg:
        await vg.indexed()
        (listed,) = (await vg.ok("list_tasks", note="T"))["items"]
        (vg.root / "T.md").write_text("# T\n\nintro\n- [ ] buy oat milk\n", encoding="utf-8")
        before = vg.snapshot()
        error = await vg.err(
            "set_task_status", "conflict", path="T", line=listed["line"], status="x", expected_text=listed["text"]
        )
        assert error["details"]["reason"] == "task_changed" and error["details"]["now_at_line"] is None
        assert vg.snapshot() == before
