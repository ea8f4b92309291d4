"""E2E (both eras, SDK client over real HTTP): a folder renamed only in letter case on a
case-sensitive disk is renamed, as its dry run says; it answered already_exists before (X3 s78)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.notes.test_case_only_folder_rename import VAULT


async def test_a_folder_renamed_in_letter_case(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            args = {"path": "Inbox", "new_path": "inbox"}
            dry = await ok(client, "rename_note", {**args, "dry_run": True})
            done = await ok(client, "rename_note", args)
            assert done["moved"] == dry["moved"] and done["path"] == "inbox", done
            assert "Inbox" not in os.listdir(harness.root) and harness.read("inbox/a.md") == "# a\n"
