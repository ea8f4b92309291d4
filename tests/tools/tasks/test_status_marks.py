"""set_task_status writes only what can stand between a checkbox's brackets: ' ' or one visible
character other than a bracket. A line break split the task line in two (the task was lost) and ']'
wrote '- []] b'; both answered success. Now they are validation errors and the note is unchanged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

NOTE = "# T\n- [ ] a 📅 2026-12-01\n"


@pytest.mark.parametrize("status", ["\n", "\r", "]", "[", "\t", "\u2028", "\x00", "\u200b"])
async def test_a_status_that_is_no_checkbox_mark_is_refused(make_vault: Callable[..., Path], status: str) -> None:
    root = make_vault({"T.md": NOTE})
    async with started(root) as vg:
        err = await vg.err("set_task_status", "validation_error", path="T", line=2, status=status, expected_text="a")
        assert err["details"]["issues"][0]["field"] == "status"
        await vg.indexed()
        assert (await vg.ok("list_tasks"))["total"] == 1
    assert (root / "T.md").read_text(encoding="utf-8") == NOTE


@pytest.mark.parametrize("status", [" ", "x", "/", "-", "!", "?", "é", "🔥"])
async def test_a_visible_status_is_written(make_vault: Callable[..., Path], status: str) -> None:
    root = make_vault({"T.md": NOTE})
    async with started(root) as vg:
        await vg.ok("set_task_status", path="T", line=2, status=status, expected_text="a 📅 2026-12-01")
    assert (root / "T.md").read_text(encoding="utf-8").splitlines()[1].startswith(f"- [{status}] a")


@pytest.mark.parametrize(
    ("status", "mark", "stamp"),
    [
        ("done", "x", " ✅ 2026-12-02"),
        ("cancelled", "-", " ❌ 2026-12-02"),
        ("in_progress", "/", ""),
        ("todo", " ", ""),
    ],
)
async def test_the_status_type_list_tasks_gives_is_a_status(
    make_vault: Callable[..., Path], status: str, mark: str, stamp: str
) -> None:
    """list_tasks answers `status_type` done / todo / in_progress / cancelled and filters by those
    words; set_task_status took one character only ('done' was validation_error: at most 1
    character), so the word an agent read back was refused."""
    root = make_vault({"T.md": NOTE})
    async with started(root) as vg:
        await vg.indexed()
        task = (await vg.ok("list_tasks", note="T"))["items"][0]
        out = await vg.ok(
            "set_task_status", path="T", line=task["line"], status=status, expected_text=task["text"], date="2026-12-02"
        )
        assert out["text"] == f"a 📅 2026-12-01{stamp}"
        again = (await vg.ok("list_tasks", note="T"))["items"][0]
        assert again["status"] == mark and again["status_type"] == status
        # As the Tasks plugin names them: 'Done', 'In Progress'.
        named = status.replace("_", " ").title()
        await vg.ok("set_task_status", path="T", line=2, status="todo", expected_text=again["text"])
        await vg.ok(
            "set_task_status", path="T", line=2, status=named, expected_text="a 📅 2026-12-01", date="2026-12-02"
        )
    assert (root / "T.md").read_text(encoding="utf-8") == f"# T\n- [{mark}] a 📅 2026-12-01{stamp}\n"


@pytest.mark.parametrize("status", ["finished", "completed", "xx", "completed_task", "Not started yet"])
async def test_a_word_that_is_no_status_type_is_refused(make_vault: Callable[..., Path], status: str) -> None:
    root = make_vault({"T.md": NOTE})
    async with started(root) as vg:
        err = await vg.err("set_task_status", "validation_error", path="T", line=2, status=status, expected_text="a")
        assert "todo, in_progress, done, cancelled" in err["message"]
    assert (root / "T.md").read_text(encoding="utf-8") == NOTE
