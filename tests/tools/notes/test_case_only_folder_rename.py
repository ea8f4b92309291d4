"""A folder renamed only in letter case (`Inbox` → `inbox`) on a case-sensitive disk (Linux) is
the folder renamed, as its dry run said. Before, the run moved it file by file and the file
layer's twin check refused the first file ('inbox/a.md' beside the folder 'Inbox' still there):
already_exists "'Inbox' already exists", after a dry run and a plan check that found nothing
wrong (X3, session 78; the case-blind disk's rename: test_case_blind_rename.py)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

VAULT = {"Inbox/a.md": "# a\n", "Inbox/Sub/b.md": "# b\n", "Home.md": "see [[Inbox/a]] and [[Inbox/Sub/b]]\n"}


@pytest.mark.parametrize("tool", ["rename_note", "move_note"])
async def test_a_folder_renamed_in_letter_case_is_renamed(make_vault: Callable[..., Path], tool: str) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        dry = await vg.ok(tool, path="Inbox", new_path="inbox", dry_run=True)
        done = await vg.ok(tool, path="Inbox", new_path="inbox")
        assert done["moved"] == dry["moved"] and done["path"] == "inbox", done
        assert "Inbox" not in os.listdir(vg.root) and sorted(os.listdir(vg.root / "inbox")) == ["Sub", "a.md"]
        assert vg.read("inbox/Sub/b.md") == "# b\n"
        await vg.settled()
        assert (await vg.ok("find_broken_links"))["items"] == []
        assert (await vg.ok("read_note", path="inbox/a"))["path"] == "inbox/a.md"


async def test_a_plan_renaming_a_folder_in_letter_case_runs_and_undoes(make_vault: Callable[..., Path]) -> None:
    plan = {
        "goal": "case",
        "steps": [{"id": "r", "tool": "rename_note", "args": {"path": "Inbox", "new_path": "inbox"}}],
    }
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        assert (await vg.ok("validate_plan", plan=plan))["valid"]
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert "Inbox" not in os.listdir(vg.root) and vg.read("inbox/a.md") == "# a\n"
        await vg.confirmed("undo_last_plan")
        assert vg.snapshot() == start and "inbox" not in os.listdir(vg.root)
