"""The link graph's build (service.tools.graph.views), through the dispatch chain: one build per
index generation shared by concurrent calls, a call whose budget ends while it builds answers
index_unavailable (reason graph_building) and the build goes on for the next call, a cancelled
call that was its only caller stops it, an idle release during a build does not drop it, and a
build of an older generation finishing last does not replace the newer graph. The load of the
links is held on an event (never a sleep), so each interleaving is the one named."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from service.graph.adjacency import LinkGraph
from tests.conftest import started

VAULT = {f"N{i}.md": f"[[N{(i + 1) % 6}]] [[N{(i + 2) % 6}]]\n" for i in range(6)}


class Held:
    """LinkGraph.load, counted; the first `hold` loads wait for `go` (in their reader thread)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, hold: int = 1) -> None:
        self.real = LinkGraph.load.__func__  # type: ignore[attr-defined]
        self.loads = 0
        self.hold = hold
        self.inside, self.go, self.ended = threading.Event(), threading.Event(), threading.Event()
        self.outcome: list[str] = []
        monkeypatch.setattr(LinkGraph, "load", classmethod(self.load))

    def load(self, cls: type[LinkGraph], *args: Any) -> LinkGraph:
        self.loads += 1
        self.args = args
        held = self.loads <= self.hold
        if held:
            self.inside.set()
            assert self.go.wait(30)
        try:
            graph = self.real(cls, *args)
        except BaseException as exc:
            self.outcome.append(type(exc).__name__)
            raise
        finally:
            if held:
                self.ended.set()
        self.outcome.append("loaded")
        return graph

    async def entered(self) -> None:
        assert await asyncio.to_thread(self.inside.wait, 30)


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[Held]:
    h = Held(monkeypatch)
    yield h
    h.go.set()  # never leave a reader thread waiting


async def test_concurrent_calls_share_one_build(make_vault: Callable[..., Path], held: Held) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        calls = [asyncio.create_task(vg.ok("central_notes", limit=2)) for _ in range(3)]
        calls.append(asyncio.create_task(vg.ok("find_communities")))
        await held.entered()
        held.go.set()
        first, *rest = await asyncio.gather(*calls)
        assert rest[:2] == [first, first] and first["notes"] == 6 and rest[2]["notes"] == 6
        assert held.loads == 1  # was one load per call that found no graph (a doubled graph)


async def test_graphrag_waits_for_the_shared_build_within_its_budget(
    make_vault: Callable[..., Path], held: Held
) -> None:
    from tests.semantic.helpers import semantic

    held.hold = 0  # the semantic index settles first, then the build is held
    async with semantic(make_vault(VAULT), limits={"max_eval_seconds": 0.2}) as vg:
        held.hold = 1
        result = await vg.call("graphrag_query", query="N1", hops=1)
        assert result.is_error and result.structured["error"]["details"]["reason"] == "graph_building"
        held.go.set()
        assert await asyncio.to_thread(held.ended.wait, 30)
        from service.tools.graph import views

        await asyncio.gather(*(b.task for b in list(views.VIEWS._kept[vg.indexer()].building.values())))
        assert (await vg.ok("graphrag_query", query="N1", hops=1))["items"]
        assert await vg.ok("central_notes", limit=2)  # the same links
        assert held.loads == 1


async def test_a_budget_ending_during_the_build_is_graph_building_and_the_build_goes_on(
    make_vault: Callable[..., Path], held: Held
) -> None:
    async with started(make_vault(VAULT), limits={"max_eval_seconds": 0.2}) as vg:
        await vg.indexed()
        call = asyncio.create_task(vg.call("central_notes", limit=2))
        await held.entered()
        result = await call  # the load is held: the call's budget ends first
        assert result.is_error
        error = result.structured["error"]
        assert error["code"] == "index_unavailable" and error["retryable"] is True
        assert error["details"]["reason"] == "graph_building" and error["details"]["vault"] == "main"
        assert not held.ended.is_set()
        held.go.set()
        assert await asyncio.to_thread(held.ended.wait, 30)
        from service.tools.graph import views

        await asyncio.gather(*(b.task for b in list(views.VIEWS._kept[vg.indexer()].building.values())))
        assert (await vg.ok("central_notes", limit=2))["notes"] == 6
        assert held.loads == 1 and held.outcome == ["loaded"]  # the next call used the build that went on


async def test_a_cancelled_call_stops_the_build_it_alone_waited_for(
    make_vault: Callable[..., Path], held: Held
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        call = asyncio.create_task(vg.call("central_notes", limit=2))
        await held.entered()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        limit = held.args[-1]  # the load's Limit: its stop is set once the cancel has reached it
        assert await asyncio.to_thread(limit.stop.wait, 30)
        held.go.set()
        assert await asyncio.to_thread(held.ended.wait, 30)
        assert held.outcome == ["Stopped"]  # stopped at its first look, not read to the end
        assert (await vg.ok("central_notes", limit=2))["notes"] == 6  # the next call builds afresh
        assert held.loads == 2


async def test_an_idle_release_during_a_build_keeps_what_it_builds(make_vault: Callable[..., Path], held: Held) -> None:
    from service.tools.graph import views

    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        call = asyncio.create_task(vg.ok("central_notes", limit=2))
        await held.entered()
        views.release_idle(0)  # everything is idle by then: only the build under way is in use
        held.go.set()
        first = await call
        assert await vg.ok("central_notes", limit=2) == first
        assert held.loads == 1  # not built twice


async def test_a_newer_generation_waits_for_the_older_build_then_builds_its_own(
    make_vault: Callable[..., Path], held: Held
) -> None:
    # one link load at a time (each holds a reader; at 100k, loads of every generation written
    # meanwhile piled up and a write waited 29 s for a reader: R1 s62 #1), and the caller still
    # gets the graph with its own write
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        old = asyncio.create_task(vg.ok("central_notes", limit=10))
        await held.entered()  # the first load (this generation) is held
        await vg.ok("write_note", path="N9.md", content="[[N1]]\n")
        await vg.settled()
        new = asyncio.create_task(vg.ok("central_notes", limit=10))
        await asyncio.wait({new}, timeout=0.5)  # bounded: the call is under way, not answered
        assert not new.done() and held.loads == 1  # it waits for the older build: no second load
        held.go.set()
        assert (await old)["notes"] in (6, 7)
        assert (await new)["notes"] == 7  # its own build, after the older one
        assert await vg.ok("central_notes", limit=10) == await new
        assert held.loads == 2  # the older build, ending last, did not replace the newer graph


async def test_a_budget_ending_while_a_newer_graph_builds_is_answered_with_the_last_graph(
    make_vault: Callable[..., Path], held: Held
) -> None:
    # a vault written all the time: every change is a new generation, and at 100k each build
    # outlasts a call's budget, so every call answered graph_building (R1 s62 #1); the graph as
    # the last build left it answers meanwhile
    held.hold = 0
    async with started(make_vault(VAULT), limits={"max_eval_seconds": 0.2}) as vg:
        await vg.indexed()
        first = await vg.ok("central_notes", limit=10)
        assert first["notes"] == 6 and held.loads == 1
        await vg.ok("write_note", path="N9.md", content="[[N1]]\n")
        await vg.settled()
        held.hold = 2  # the next load is held
        assert await vg.ok("central_notes", limit=10) == first  # past its budget: the last graph
        held.go.set()
        assert await asyncio.to_thread(held.ended.wait, 30)
        from service.tools.graph import views

        await asyncio.gather(*(b.task for b in list(views.VIEWS._kept[vg.indexer()].building.values())))
        assert (await vg.ok("central_notes", limit=10))["notes"] == 7


async def test_a_note_made_in_a_denied_folder_during_the_build_stays_hidden(
    make_vault: Callable[..., Path], held: Held
) -> None:
    # a restricted caller with nothing denied when the notes were read shared the unrestricted
    # view, whose graph took every link end, so a note written meanwhile in a denied folder was
    # a node of its graph (R1 s62 #2)
    acl = {"prefix_rules": [{"path": "Secret", "read": "deny"}]}
    async with started(make_vault({"Hub.md": "[[Other]]\n", "Other.md": "[[Hub]]\n"}), acl=acl) as vg:
        await vg.indexed()
        call = asyncio.create_task(vg.ok("central_notes", limit=100))
        await held.entered()  # the notes are read (no Secret note yet); the links' load is held
        await vg.ok("write_note", path="Secret/Payroll.md", content="[[Hub]] [[Other]]\n")
        await vg.settled()
        held.go.set()
        out = await call
        assert sorted(i["path"] for i in out["items"]) == ["Hub.md", "Other.md"]
        assert out["notes"] == 2
