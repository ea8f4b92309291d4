"""Over real HTTP with the SDK client (G3 s88): a rename_tag whose plan outlasts `[limits]
max_rewrite_seconds` answers `compute_budget_exceeded` with how many of the notes holding the tag
it examined, before any confirmation is asked, and its dry run answers the same; nothing changes.
The plan clock is a fake one moving a second each time it is read (`service.graph.plan_clock.now`;
the server runs in this process): with a budget of 2.5 s it is found spent after the third note,
whatever the machine's load."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from service.graph import plan_clock
from tests.conftest import e2e, snapshot
from tests.e2e.calls import error
from tests.ticks import Ticks


async def test_a_tag_rename_past_its_plan_budget_is_a_structured_refusal(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({f"Notes/n{i}.md": f"# n{i}\n\nAbout #proj here.\n" for i in range(6)})
    async with e2e(root, limits={"max_rewrite_seconds": 2.5}) as (url, harness), Client(url) as client:
        await harness.indexed()
        before = snapshot(root)
        monkeypatch.setattr(plan_clock, "now", Ticks(), raising=False)
        for dry_run in (False, True):  # the confirmation's preview, the dry run
            err = await error(client, "rename_tag", {"old": "proj", "new": "project", "dry_run": dry_run})
            assert err["code"] == "compute_budget_exceeded", err
            details = err["details"]
            assert (details["limit"], details["setting"]) == ("seconds", "max_rewrite_seconds"), err
            assert (details["examined"], details["total"]) == (3, 6), err
            assert "max_rewrite_seconds" in err["hint"]
        assert snapshot(root) == before
