"""list_tasks through the dispatch chain: a date filter with the shape of a date that names no day
(2026-02-30) is refused with the argument named, as get_periodic_note and tasks_filter refuse one;
before, it matched nothing and the caller read 'no tasks due then'."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started


@pytest.mark.covers("list_tasks", "failure")
async def test_an_impossible_date_filter_is_refused(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"T.md": "- [ ] pay 📅 2026-02-28\n"})) as vg:
        await vg.indexed()
        for name in ("due_on", "due_before", "due_after", "scheduled_on", "scheduled_before", "scheduled_after"):
            err = await vg.err("list_tasks", "validation_error", **{name: "2026-02-30"})
            assert err["details"]["field"] == name and "not a calendar date" in err["message"]
        out = await vg.ok("list_tasks", due_on="2026-02-28")
        assert [i["description"] for i in out["items"]] == ["pay"]
