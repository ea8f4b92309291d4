"""Graph analytics end within the call's budget and stop with the call: central_notes
(betweenness) and find_communities through the dispatch chain with a tiny `[limits]
max_eval_seconds` answer with what they reached (`cut`) once the graph is built, and a cancelled betweenness call's
worker (a daemon thread) stops at its next source instead of running through every one."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.graph import analytics as ga
from tests.conftest import started

# A ring of 40 notes with a spoke: 41 notes, so max_sources=64 is exact when nothing cuts it.
RING = {f"R{i:02}.md": f"[[R{(i + 1) % 40:02}]]\n" for i in range(40)}
RING["R00.md"] += "[[Spoke]]\n"
RING["Spoke.md"] = "[[R00]]\n"
TINY = {"limits": {"max_eval_seconds": 1e-9}}  # past the deadline at the first look


async def graph_built(vg: Any) -> None:
    """Under TINY every call's wait for the link graph's build ends at once (graph_building) while
    the build goes on: wait for the builds the calls start until one call finds the graph."""
    from service.tools.graph import views

    while (result := await vg.call("central_notes", limit=1)).is_error:
        assert result.structured["error"]["details"]["reason"] == "graph_building"
        await asyncio.gather(*(b.task for b in list(views.VIEWS._kept[vg.indexer()].building.values())))


async def test_betweenness_past_the_budget_is_the_estimate_from_the_sources_done(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(RING), **TINY) as vg:
        await vg.indexed()
        await graph_built(vg)
        out = await vg.ok("central_notes", measure="betweenness", max_sources=64, limit=5)
        assert out["cut"] is True and out["exact"] is False and out["sources"] == 1 and out["seed"] == 0
        assert out["notes"] == 41 and len(out["items"]) == 5
        again = await vg.ok("central_notes", measure="betweenness", max_sources=64, limit=5)
        assert again == out  # kept: the next pages rank the same scores
        rank = await vg.ok("central_notes", limit=3)  # pagerank is not cut
        assert rank["cut"] is False and rank["exact"] is True


async def test_communities_past_the_budget_are_the_partition_reached_so_far(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(RING), **TINY) as vg:
        await vg.indexed()
        await graph_built(vg)
        out = await vg.ok("find_communities", min_size=1, limit=1000)
        assert out["cut"] is True and out["notes"] == 41
        assert sum(c["size"] for c in out["items"]) == 41  # every note in exactly one community


async def test_without_a_tight_budget_nothing_is_cut(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(RING)) as vg:
        await vg.indexed()
        out = await vg.ok("central_notes", measure="betweenness", max_sources=64)
        assert out["cut"] is False and out["exact"] is True and out["sources"] == 41
        assert (await vg.ok("find_communities"))["cut"] is False


async def test_a_cancelled_betweenness_call_stops_its_worker(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    inside, go, ended = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, Any] = {"sources": 0}
    dependencies, betweenness = ga._dependencies, ga.betweenness

    def counted(*args: Any) -> Any:
        seen["sources"] += 1
        seen["daemon"] = threading.current_thread().daemon
        inside.set()
        go.wait(30)  # the first source holds until the call is cancelled
        return dependencies(*args)

    def watched(*args: Any, **kwargs: Any) -> Any:
        try:
            return betweenness(*args, **kwargs)
        finally:
            ended.set()

    monkeypatch.setattr(ga, "_dependencies", counted)
    monkeypatch.setattr(ga, "betweenness", watched)
    async with started(make_vault(RING)) as vg:
        await vg.indexed()
        call = asyncio.create_task(vg.call("central_notes", measure="betweenness", max_sources=64))
        assert await asyncio.to_thread(inside.wait, 30)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        go.set()
        assert await asyncio.to_thread(ended.wait, 30)
        assert seen["sources"] == 1  # not 41: the stop flag ended it at the next source
        assert seen["daemon"] is True  # never keeps a stopping server alive
        monkeypatch.setattr(ga, "_dependencies", dependencies)
        out = await vg.ok("central_notes", measure="betweenness", max_sources=64)
        assert out["exact"] is True and out["sources"] == 41  # nothing half-done was kept


async def test_graphs_no_call_uses_are_released_with_the_idle_query_images(make_vault: Callable[..., Path]) -> None:
    from service.graph.adjacency import LinkGraph
    from service.tools.graph import views

    async with started(make_vault(RING), search={"query_images_idle_s": 0.2}) as vg:
        await vg.indexed()
        first = await vg.ok("central_notes", limit=3)
        indexer = vg.indexer()
        kept = lambda: indexer in views.VIEWS._kept  # noqa: E731
        assert kept() and isinstance(views.VIEWS._kept[indexer].done["links"], LinkGraph)
        for _ in range(1200):  # the release looks every 0.05 s here
            if not kept():
                break
            await asyncio.sleep(0.05)
        assert not kept()  # views and links dropped, not held for the server's life
        assert await vg.ok("central_notes", limit=3) == first  # built again on the next call
        assert isinstance(views.VIEWS._kept[indexer].done["links"], LinkGraph)
