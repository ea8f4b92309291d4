"""A search's index reads run under `[search] read_budget_ms`: a statement still running past it
is interrupted and the call answers compute_budget_exceeded (not the query_syntax_error FTS5's
refusals become), the reader is usable again at once, through the dispatch chain and over HTTP
with the SDK client. At 100k notes an OR of one-letter prefixes ranked for 10-30 s; here the
ranking statement is made endless so that only the budget can end it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from service.retrieval import text
from tests.conftest import Harness, e2e, started

ENDLESS = (
    "SELECT rowid, -bm25(fts_words, 5.0, 1.0) AS score FROM fts_words WHERE fts_words MATCH ?"
    " AND (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000000000000)"
    " SELECT count(*) FROM c) > 0 ORDER BY score DESC LIMIT ?"
)
FILES = {"Projects/Plan.md": "# Plan\n\nThe garden plan for spring.\n", "Notes/Soil.md": "Garden soil notes.\n"}


@pytest.fixture
async def vg(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(FILES), search={"read_budget_ms": 300}) as h:
        await h.indexed()
        yield h


async def test_a_ranking_past_the_budget_is_compute_budget_exceeded(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(text, "_BEST", ENDLESS)
    err = await asyncio.wait_for(vg.err("search_text", "compute_budget_exceeded", query="garden"), 60)
    assert err["details"] == {"limit": "seconds", "read_budget_ms": 300}
    assert "prefix" in err["hint"] and err["retryable"] is False
    monkeypatch.undo()
    for _ in range(4):  # every pooled reader answers again: the handler went with the call
        out = await vg.ok("search_text", query="garden", sort="path")
        assert [i["path"] for i in out["items"]] == ["Notes/Soil.md", "Projects/Plan.md"]


async def test_over_http_the_sdk_client_gets_the_structured_error(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp import Client

    async with e2e(make_vault(FILES), search={"read_budget_ms": 300}) as (url, h):
        await h.indexed()
        monkeypatch.setattr(text, "_BEST", ENDLESS)
        async with Client(url) as client:
            result = await asyncio.wait_for(client.call_tool("search_text", {"query": "garden"}), 60)
            assert result.is_error
            assert (result.structured_content or {})["error"]["code"] == "compute_budget_exceeded"
            monkeypatch.undo()
            again = await client.call_tool("search_text", {"query": "soil"})
            assert not again.is_error
            assert [i["path"] for i in (again.structured_content or {})["items"]] == ["Notes/Soil.md"]


async def test_search_regex_keeps_its_own_longer_budget(vg: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """A regex search given more time than `read_budget_ms` (its `budget_ms`, up to
    `regex_max_budget_ms`) is not cut at the read budget: its statements here take ~1 s."""
    from service.retrieval import regex as rx

    real = rx.search

    def slow(conn: Any, *args: Any, **kwargs: Any) -> Any:
        conn.create_function("pause", 0, lambda: time.sleep(0.005))
        conn.execute(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200) SELECT count(pause()) FROM c"
        ).fetchone()
        return real(conn, *args, **kwargs)

    monkeypatch.setattr(rx, "search", slow)
    out = await asyncio.wait_for(vg.ok("search_regex", pattern="garden", ignore_case=True, budget_ms=5000), 60)
    assert [i["path"] for i in out["items"]] == ["Notes/Soil.md", "Projects/Plan.md"]
    cut = await vg.err("search_regex", "compute_budget_exceeded", pattern="garden", budget_ms=100)
    assert cut["details"]["read_budget_ms"] == 300  # a budget under the read budget: the read budget's
