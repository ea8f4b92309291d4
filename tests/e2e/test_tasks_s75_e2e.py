"""Session 75's tasks changes over real HTTP with the SDK client (both eras): set_task_status given a
status type writes the status the Tasks plugin settings register for it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

PLUGIN = ".obsidian/plugins/obsidian-tasks-plugin/data.json"


async def test_a_status_type_writes_the_settings_status_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    working = {"symbol": "w", "name": "Working", "nextStatusSymbol": "x", "type": "IN_PROGRESS"}
    files = {"T.md": "- [ ] ask Bob\n", PLUGIN: json.dumps({"statusSettings": {"customStatuses": [working]}})}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            args = {"path": "T", "line": 1, "expected_text": "ask Bob"}
            out = await ok(client, "set_task_status", status="in_progress", **args)
            assert (out["status_type"], out["changes"][0]["after"]) == ("in_progress", "- [w] ask Bob")
            err = await error(client, "set_task_status", status="cancelled", **args)
            assert (err["code"], err["details"]["reason"]) == ("validation_error", "no_such_status")
