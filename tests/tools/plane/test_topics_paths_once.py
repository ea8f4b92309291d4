"""The topic maps' link graph holds each note's path once, however many links name it: at 100k notes
(580k links) the edges read with a new string per row took 142 MB of the server's memory, 50 MB
with each path shared (docs/benchmarks.md, "the consolidation plane at 100,000 notes"). Here the
edges the job reads during a run_consolidation through the whole dispatch chain are looked at: as
many path objects as paths."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.plane.topics import TopicMaps
from tests.conftest import started

N = 8  # notes that all link one another: 56 links, 8 paths


async def test_the_link_graph_holds_each_path_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"Ring/R{i}.md": "# R\n\n" + " ".join(f"[[R{j}]]" for j in range(N) if j != i) for i in range(N)}
    seen: list[list[tuple[str, str]]] = []
    real = TopicMaps.maps

    def maps(self: TopicMaps, ctx: Any, edges: list[tuple[str, str]], *args: Any) -> Any:
        seen.append(list(edges))
        return real(self, ctx, edges, *args)

    monkeypatch.setattr(TopicMaps, "maps", maps)
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        ran = await vg.ok("run_consolidation", wait=True, jobs=["topics"])
    (edges,) = seen
    assert len(edges) == N * (N - 1)
    objects = {id(p) for edge in edges for p in edge}
    assert len(objects) == len({p for edge in edges for p in edge}) == N  # before: a string per row, 112
    assert [j["status"] for j in ran["jobs"]] == ["ran"]
