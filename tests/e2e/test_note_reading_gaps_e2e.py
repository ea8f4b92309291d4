"""Gaps in how notes are read, end to end over HTTP with the SDK client in both eras; each is tested
through the dispatch chain beside its fix.

- tasks_filter's `exclude sub-items` keeps the tasks the Tasks plugin keeps: nothing before the
  list marker, or in a quote at most one space after the last `>`
  (tests/tools/tasks/test_exclude_sub_items.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

NESTED = (
    "# Trip\n\n- [ ] book flights\n  - [ ] compare prices\n- packing\n    - [ ] buy adapter\n\n"
    "> [!todo] Errands\n> - [ ] renew passport\n>   - [ ] find photos\n"
)


async def test_exclude_sub_items_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Trip.md": NESTED})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            out = await ok(c, "tasks_filter", query="not done\nexclude sub-items\nsort by description")
            assert [i["description"] for i in out["items"]] == ["book flights", "renew passport"]
            out = await ok(c, "tasks_filter", query="NOT (exclude sub-items)\nsort by description")
            assert [i["description"] for i in out["items"]] == ["buy adapter", "compare prices", "find photos"]
