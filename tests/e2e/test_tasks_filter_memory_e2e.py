"""tasks_filter over real HTTP with the SDK client: the texts many names hold together end at
[limits] max_eval_bytes (each was bounded alone: n names held n x max_value_bytes), and a hostile
filter running to its time budget does not hold the server: another client is answered meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.tools.tasks import filtering
from tests.conftest import e2e
from tests.e2e.calls import error, ok

FILES = {"T.md": "- [ ] one 📅 2026-11-29\n- [ ] two\n", "Other.md": "# Other\n\nread meanwhile\n"}


async def test_names_holding_texts_together_end_at_the_memory_budget_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    big = "const a = 'x'.padStart(10000, 'x'); const b = `" + "${a}" * 9 + "`;"  # 90,000 characters
    limits = {"max_value_bytes": 100_000, "max_eval_bytes": 250_000}
    async with e2e(make_vault(FILES), limits=limits) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = f"group by function {big} const c = b + 'c'; const d = b + 'd'; return d.length"
            bad = await error(client, "tasks_filter", query=query)
            assert bad["code"] == "compute_budget_exceeded"
            assert bad["details"]["limit"] == "held" and bad["details"]["max_eval_bytes"] == 250_000
            query = f"group by function {big} const c = b + 'c'; return c.length"
            out = await ok(client, "tasks_filter", query=query)
            assert out["groups"] == [{"names": ["90001"], "count": 2}]


async def test_another_client_is_answered_while_a_hostile_filter_runs_over_http(
    make_vault: Callable[..., Path], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nested loops over 10,000 characters run to the query's 3 s budget; another client's read,
    made once they started, is answered before they end (on the loop it could not be)."""
    loops = (
        "filter by function 'x'.padStart(10000, 'x').split('').map(c => 'x'.padStart(10000, 'x').split('')"
        ".filter(d => d === c).length).length > 0"
    )
    began = asyncio.Event()
    real = filtering.run_columns
    loop = asyncio.get_running_loop()

    def signalled(*args: Any) -> Any:
        loop.call_soon_threadsafe(began.set)
        return real(*args)

    monkeypatch.setattr(filtering, "run_columns", signalled)
    async with e2e(make_vault(FILES), search={"regex_budget_ms": 3000}) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as slow_client, Client(url, mode=mode) as other:  # type: ignore[arg-type]
            slow = asyncio.create_task(slow_client.call_tool("tasks_filter", {"query": loops}))
            await asyncio.wait([asyncio.ensure_future(began.wait()), slow], return_when=asyncio.FIRST_COMPLETED)
            out = await ok(other, "read_note", path="Other")
            assert "read meanwhile" in out["content"]
            assert not slow.done()
            result = await asyncio.wait_for(slow, 60)
            assert result.is_error and result.structured_content is not None
            assert result.structured_content["error"]["details"]["limit"] == "seconds"
