"""The dataview tools over real HTTP with the SDK client, in both protocol eras."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.tools.dataview.dv_vault import DV_VAULT


@pytest.mark.covers("search_dql", "success")
@pytest.mark.covers("search_dql", "failure")
@pytest.mark.covers("validate_dql", "success")
@pytest.mark.covers("validate_dql", "failure")
@pytest.mark.covers("eval_dataview_field", "success")
@pytest.mark.covers("eval_dataview_field", "failure")
async def test_dataview_tools_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(DV_VAULT)) as (url, harness):
        await harness.indexed()
        before = harness.snapshot()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "search_dql", {"query": 'TABLE rating FROM "Books" SORT rating DESC', "limit": 2})
            assert [r["path"] for r in out["rows"]] == ["Books/Dune.md", "Books/Emma.md"] and out["total"] == 3
            assert out["rows"][0]["obsidian_url"].startswith("obsidian://open?")
            rest = await ok(
                client,
                "search_dql",
                {"query": 'TABLE rating FROM "Books" SORT rating DESC', "limit": 2, "cursor": out["next_cursor"]},
            )
            assert [r["path"] for r in rest["rows"]] == ["Books/Dune Messiah.md"] and rest["next_cursor"] is None
            err = await error(client, "search_dql", {"query": "LIST WHERE"})
            assert err["code"] == "query_syntax_error" and err["details"]["line"] == 1
            # TASK ... SORT / GROUP BY keep references, not task rows: the rows are those of the rows path
            for query in ("TASK SORT text DESC LIMIT 3", "TASK GROUP BY completed", "TASK"):
                lean = await ok(client, "search_dql", {"query": query, "limit": 10})
                rows = await ok(client, "search_dql", {"query": query + " WHERE true", "limit": 10})
                assert lean["rows"] == rows["rows"] and lean["total"] == rows["total"] > 0
            every = await ok(client, "search_dql", {"query": "TASK", "limit": 100})
            desc = await ok(client, "search_dql", {"query": "TASK SORT text DESC", "limit": 100})  # plain keys
            assert [t["text"] for t in desc["rows"]] == sorted((t["text"] for t in every["rows"]), reverse=True)
            by_text = await ok(client, "search_dql", {"query": "TASK SORT text DESC LIMIT 2", "limit": 10})
            texts = [t["text"] for t in by_text["rows"]]
            assert texts == ["write intro [priority:: 1]", "review [[Alpha]] 📅 2026-02-01"]
            valid = await ok(client, "validate_dql", {"query": "TASK FROM #project WHERE !completed"})
            assert valid["valid"] and valid["parsed"]["type"] == "TASK"
            assert (await error(client, "validate_dql", {"query": ""}))["code"] == "validation_error"
            fields = await ok(client, "eval_dataview_field", {"path": "Dune", "field": "pages"})
            assert fields["fields"]["pages"] == {"type": "number", "value": 412}
            assert (await error(client, "eval_dataview_field", {"path": "Nope"}))["code"] == "note_not_found"
        assert harness.snapshot() == before


async def test_dateformat_luxon_tokens_and_a_sort_column_over_http(
    make_vault: Callable[..., Path], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Luxon's tokens as Dataview writes them, the zone ones in the server's zone (set to New York
    here; they were written as they are: 'fff', 'ZZ'), and sort(…) as a column."""
    note = "---\nmet: 2026-01-05T14:07:09\ntags: [b, a]\n---\n"
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        await _dateformat_and_sort(make_vault({"Met.md": note}), mode)
    finally:
        monkeypatch.undo()
        time.tzset()


async def _dateformat_and_sort(root: Path, mode: str) -> None:
    async with e2e(root) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = 'TABLE WITHOUT ID dateformat(met, "DDD"), dateformat(met, "cccc t"), sort(tags) FROM "Met"'
            out = await ok(client, "search_dql", {"query": query})
            assert [c["value"] for c in out["rows"][0]["cells"]] == ["January 5, 2026", "Monday 2:07 PM", ["a", "b"]]
            out = await ok(client, "search_dql", {"query": 'TABLE sort(tags) FROM "Met"'})
            assert out["columns"] == ["File", "sort(tags)"] and out["rows"][0]["cells"][0]["value"] == ["a", "b"]
            query = (
                'TABLE WITHOUT ID dateformat(met, "fff"), dateformat(met, "DD ttt"), dateformat(met, "z ZZ") FROM "Met"'
            )
            out = await ok(client, "search_dql", {"query": query})
            assert [c["value"] for c in out["rows"][0]["cells"]] == [
                "January 5, 2026, 2:07 PM EST", "Jan 5, 2026 2:07:09 PM EST", "America/New_York -05:00"]  # fmt: skip
