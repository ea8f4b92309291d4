"""Over real HTTP with the SDK client (G2 s87): a folder move whose plan outlasts `[limits]
max_rewrite_seconds` answers `compute_budget_exceeded` with how many of the linking notes it
examined, before any confirmation is asked, and its dry run answers the same; nothing changes.
The budget is a microsecond, so the look at the clock after the first note always finds it spent:
nothing is timed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error


async def test_a_folder_move_past_its_plan_budget_is_a_structured_refusal(make_vault: Callable[..., Path]) -> None:
    files = {f"Topics/T{t}.md": f"# T{t}\n" for t in range(2)}
    files.update({f"Notes/n{i}.md": f"See [[Topics/T{i % 2}]].\n" for i in range(6)})
    root = make_vault(files)
    async with e2e(root, limits={"max_rewrite_seconds": 0.000001}) as (url, harness), Client(url) as client:
        await harness.indexed()
        before = snapshot(root)
        for args in (
            {"path": "Topics", "new_path": "Archive/Topics"},  # the confirmation's preview
            {"path": "Topics", "new_path": "Archive/Topics", "dry_run": True},
        ):
            err = await error(client, "move_note", args)
            assert err["code"] == "compute_budget_exceeded", err
            details = err["details"]
            assert (details["limit"], details["setting"], details["total"]) == ("seconds", "max_rewrite_seconds", 8)
            assert 1 <= details["examined"] < 8
            assert "max_rewrite_seconds" in err["hint"]
        assert snapshot(root) == before
