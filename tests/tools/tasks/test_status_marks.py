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
