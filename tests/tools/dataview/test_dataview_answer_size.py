"""A page of TASK ... GROUP BY groups that would not fit the response limit answers `overflow`
without rendering every task of its groups, through the dispatch chain and over real HTTP with
the SDK client: over 10^5 notes `TASK GROUP BY completed` rendered ~400,000 tasks (a 1.3 GB
transient) before the response governor measured the answer and refused it. The tasks rendered
are counted through a hook on the renderer, never timed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.dataview import execute
from tests.conftest import Harness, e2e, started
from tests.e2e.calls import error, ok

NOTES = 40
TASKS = 6
LIMIT = 4096  # [governor] max_response_bytes: a group of this vault's tasks is ~10-40 KB


def _vault() -> dict[str, str]:
    files: dict[str, str] = {}
    for n in range(NOTES):
        lines = "\n".join(
            f"- [{'x' if k % 3 == 0 else ' '}] task {n}-{k} with some words [[Note {(n + k) % NOTES}]]"
            for k in range(TASKS)
        )
        files[f"Notes/Note {n:02d}.md"] = f"---\nrank: {n % 7}\n---\n# Note {n}\n\n{lines}\n"
    return files


@pytest.fixture
async def vg(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(_vault()), governor={"max_response_bytes": LIMIT}) as harness:
        await harness.indexed()
        yield harness


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Tasks rendered (`execute._task`, which both TASK paths call for every task they render)."""
    built = [0]
    real = execute._task

    def task(row: Any) -> dict[str, Any]:
        built[0] += 1
        return real(row)

    monkeypatch.setattr(execute, "_task", task)
    return built


@pytest.mark.parametrize("query", ["TASK GROUP BY completed", "TASK GROUP BY completed WHERE true"])
async def test_a_group_past_the_limit_is_overflow_before_every_task_is_rendered(
    vg: Harness, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    # the kept references (a lean TASK) and the rows path (a WHERE after the GROUP BY)
    built = _counted(monkeypatch)
    err = await vg.err("search_dql", "overflow", query=query, limit=50)
    assert err["details"]["limit"] == LIMIT and err["details"]["bytes"] > LIMIT
    assert err["details"]["tool"] == "search_dql" and "suggested_limit" not in err["details"]
    assert "group" in err["hint"]
    # stopped past 4 KB of tasks (~100 bytes each); every one of the 240 was rendered before
    assert 0 < built[0] <= LIMIT // 50


async def test_a_page_of_small_groups_past_the_limit_suggests_the_groups_that_fit(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _counted(monkeypatch)
    err = await vg.err("search_dql", "overflow", query="TASK GROUP BY file.name", limit=NOTES)
    suggested = err["details"]["suggested_limit"]
    assert 0 < suggested < NOTES and 0 < built[0] <= LIMIT // 50  # of 240
    page = await vg.ok("search_dql", query="TASK GROUP BY file.name", limit=suggested)
    assert len(page["rows"]) == suggested and page["total"] == NOTES and page["next_cursor"]
    assert [len(g["tasks"]) for g in page["rows"]] == [TASKS] * suggested


async def test_a_page_that_fits_answers_as_before(vg: Harness) -> None:
    for query in ('TASK FROM "Notes/Note 03" GROUP BY completed', 'TASK FROM "Notes/Note 03" SORT text DESC'):
        out = await vg.ok("search_dql", query=query, limit=50)
        again = await vg.ok("search_dql", query=query + " WHERE true", limit=50)
        assert out["rows"] == again["rows"] and out["total"] == again["total"] > 0


async def test_a_group_past_the_limit_is_overflow_over_http(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _counted(monkeypatch)
    async with e2e(make_vault(_vault()), governor={"max_response_bytes": LIMIT}) as (url, harness):
        await harness.indexed()
        async with Client(url, mode="legacy") as client:
            err = await error(client, "search_dql", {"query": "TASK GROUP BY completed", "limit": 50})
            assert err["code"] == "overflow" and err["details"]["limit"] == LIMIT
            assert 0 < built[0] <= LIMIT // 50
            out = await ok(client, "search_dql", {"query": 'TASK FROM "Notes/Note 03" GROUP BY completed'})
            assert [len(g["tasks"]) for g in out["rows"]] == [4, 2]
