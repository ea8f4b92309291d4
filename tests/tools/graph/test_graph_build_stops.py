"""When the link graph's shared builds (service.tools.graph.views) stop and when they go on,
through the dispatch chain: a cancelled call stops a build only when it was its last waiter
(another call waiting for the same build still gets its answer from the one load), the server
stopping stops the builds under way (an orphan build whose caller got graph_building no longer
reads to the end: at 100k notes that held the stop for tens of seconds), every stage of the
graph build and of the notes' read looks at the stop flag, and graphrag_query's wait for the
build is what its search left of its budget (one budget for the whole call); a cancelled view
build leaves the links build graphrag still waits for. Loads are held on
events, never a sleep, so each interleaving is the one named (review R1 s62 #3, #5, #6, #8)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from service.graph.analytics import Limit, NoteGraph, Stopped
from service.graph.queries import GraphQueries
from tests.conftest import started
from tests.tools.graph.test_graph_build import VAULT, Held


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[Held]:
    h = Held(monkeypatch)
    yield h
    h.go.set()  # never leave a reader thread waiting


async def _waiters(vg: Any, key: str, count: int) -> None:
    """Until the build of `key` has `count` calls waiting for it (bounded: 60 s)."""
    from service.tools.graph import views

    for _ in range(6000):
        kept = views.VIEWS._kept.get(vg.indexer())
        build = kept.building.get(key) if kept is not None else None
        if build is not None and build.waiters >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never {count} waiters of {key!r}")


@pytest.mark.parametrize("second", ["central_notes", "find_communities"])
async def test_a_cancelled_call_leaves_the_build_another_call_waits_for(
    make_vault: Callable[..., Path], held: Held, second: str
) -> None:
    async with started(make_vault(VAULT), limits={"max_eval_seconds": 60}) as vg:
        await vg.indexed()
        first = asyncio.create_task(vg.call("central_notes", limit=2))
        await held.entered()  # the links' load is held
        other = asyncio.create_task(vg.call(second))
        await _waiters(vg, frozenset(), 2)  # both wait for the one view build
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        assert not held.args[-1].stop.is_set()  # the other call still waits: the load goes on
        held.go.set()
        result = await asyncio.wait_for(other, 60)
        assert not result.is_error and result.structured["notes"] == 6
        assert held.outcome == ["loaded"] and held.loads == 1  # one load, read to the end, used


async def test_a_cancelled_view_build_leaves_the_links_graphrag_waits_for(
    make_vault: Callable[..., Path], held: Held
) -> None:
    # nested: central_notes' view build and graphrag_query both wait for the one links build; the
    # view's caller is cancelled, so the view build ends, but the links build goes on for graphrag
    from tests.semantic.helpers import semantic

    held.hold = 0  # the semantic index settles first, then the build is held
    async with semantic(make_vault(VAULT), limits={"max_eval_seconds": 60}) as vg:
        held.hold = 1
        view = asyncio.create_task(vg.call("central_notes", limit=2))
        await held.entered()
        rag = asyncio.create_task(vg.call("graphrag_query", query="N1", hops=1))
        await _waiters(vg, "links", 2)  # the view build's wait and graphrag's
        view.cancel()
        with pytest.raises(asyncio.CancelledError):
            await view
        assert not held.args[-1].stop.is_set()  # graphrag still waits: the load goes on
        held.go.set()
        result = await asyncio.wait_for(rag, 60)
        assert not result.is_error and result.structured["items"]
        assert held.outcome == ["loaded"] and held.loads == 1


async def test_a_server_stopping_stops_an_orphan_build(make_vault: Callable[..., Path], held: Held) -> None:
    # the call's budget ends first (graph_building), the build goes on with no caller; the server
    # stopping must stop it: the held load resumes once its stop flag is set (or after 20 s, when
    # nothing set it, and reads to the end: the defect)
    def release() -> None:
        assert held.inside.wait(30)
        held.args[-1].stop.wait(20)
        held.go.set()

    watcher = threading.Thread(target=release, daemon=True)
    watcher.start()
    async with started(make_vault(VAULT), limits={"max_eval_seconds": 0.2}) as vg:
        await vg.indexed()
        result = await vg.call("central_notes", limit=2)
        assert result.structured["error"]["details"]["reason"] == "graph_building"
        assert not held.ended.is_set()
    assert held.ended.is_set()  # the stop waited for the load's end (its reader closed)
    assert held.outcome == ["Stopped"]  # stopped at its next look, not read to the end
    watcher.join(5)


def test_the_graph_build_and_the_notes_read_look_at_the_stop_flag_all_along() -> None:
    class StopsAfter(Limit):
        """Its stop is set once it has been looked at `looks` times."""

        def __init__(self, looks: int) -> None:
            super().__init__()
            self.looks = looks

        def up(self) -> bool:
            self.looks -= 1
            if self.looks < 0:
                self.stop.set()
            return super().up()

    paths = [f"N{i}.md" for i in range(50)]
    src = [i for i in range(50) for _ in range(2)]
    dst = [(i + 1 + k) % 50 for i in range(50) for k in (0, 1)]
    links = (paths, np.asarray(src), np.asarray(dst))
    NoteGraph.from_links(links, paths, None, StopsAfter(100))  # never stopped: the whole graph
    for looks in range(1, 6):  # stopped after its first look (it looked only there), its second, ...
        with pytest.raises(Stopped):
            NoteGraph.from_links(links, paths, None, StopsAfter(looks))

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE notes (vault_id TEXT, path TEXT, title TEXT, aliases TEXT)")
    conn.executemany("INSERT INTO notes VALUES ('v', ?, ?, '[]')", [(f"N{i:05}.md", f"N{i}") for i in range(9000)])

    class Db:
        async def run_read(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
            return fn(conn)

    queries = GraphQueries(Db())  # type: ignore[arg-type]
    assert len(asyncio.run(queries.note_titles("v", StopsAfter(100)))) == 9000
    with pytest.raises(Stopped):  # between two of its 9,000 rows, not after the last
        asyncio.run(queries.note_titles("v", StopsAfter(1)))


async def test_graphrag_waits_for_the_build_only_what_its_search_left_of_its_budget(
    make_vault: Callable[..., Path], held: Held, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.tools.graph import graphrag, views
    from tests.semantic.helpers import semantic

    searched: list[float] = []
    deadlines: list[float] = []
    real_halves, real_shared = graphrag.hybrid_halves, views.Views._shared

    async def slow_halves(*args: Any, **kwargs: Any) -> Any:
        out = await real_halves(*args, **kwargs)
        await asyncio.sleep(0.5)  # a search longer than the whole budget (0.3 s)
        searched.append(time.monotonic())
        return out

    async def shared(self: Any, kept: Any, key: Any, make: Any, deadline: float, vault: str) -> Any:
        deadlines.append(deadline)
        return await real_shared(self, kept, key, make, deadline, vault)

    monkeypatch.setattr(graphrag, "hybrid_halves", slow_halves)
    monkeypatch.setattr(views.Views, "_shared", shared)
    held.hold = 0  # the semantic index settles first, then the build is held
    async with semantic(make_vault(VAULT), limits={"max_eval_seconds": 0.3}) as vg:
        held.hold = 1
        result = await vg.call("graphrag_query", query="N1", hops=1)
        assert result.is_error and result.structured["error"]["details"]["reason"] == "graph_building"
        # the wait ended where the call's budget did, before the search ended (it restarted there)
        assert deadlines and searched and max(deadlines) < searched[0]
        held.go.set()
