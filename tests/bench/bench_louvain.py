"""Louvain alone: `service.graph.analytics.communities` timed in process on the link graph of an
indexed standard vault (the index's links, as the topic maps read them), `--calls` calls in a row,
each under a `Limit` whose `turns` records when it was looked at (as the consolidation plane's
worker thread gives way there): the longest stretch between two looks is the longest the work
could not give way.

Run: `python -m tests.bench.bench_louvain --db <cache.db> [--src TREE]`, e.g. the index of the 100k
vault under `$VAULTGATE_BENCH_DIR/xdg-cache/vaultgate/vault-100000-42-*/cache.db` (index it once with
any benchmark's `--notes 100000`); `--src` imports `service` from another checkout (a worktree of an
older commit) to compare.

`--tool [--notes 10000]`: `find_communities` through the full dispatch chain on the standard vault
(in process, as `bench_graph_analytics`), `--calls` times, the view's kept communities dropped
before each call so that each computes them (the caller's graph and its PageRank stay kept): the
p50 is the tool's time with Louvain. Run it from the checkout to measure (its `tests` and
`service` go together). Prints one JSON object. Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import time


async def through_the_tool(notes: int, calls: int) -> None:
    from service.tools.graph.views import VIEWS, View
    from tests.bench.common import standard_vault, summary_ms
    from tests.conftest import started

    def forget() -> None:  # the communities each view kept: the next call computes them
        for generation in list(VIEWS._kept.values()):
            for view in generation.done.values():
                if isinstance(view, View):
                    view.graph._cache.pop("communities", None)

    root, _ = standard_vault(notes)
    async with started(root) as vg:
        await vg.indexed()
        first = await vg.ok("find_communities")
        samples = []
        for _ in range(calls):
            forget()
            t0 = time.perf_counter()
            await vg.ok("find_communities")
            samples.append(time.perf_counter() - t0)
    result = {"notes": notes, "modularity": first["modularity"], "communities": first["total"], **summary_ms(samples)}
    print(json.dumps({"find_communities": result, "samples_ms": [round(s * 1000, 1) for s in samples]}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", default="", help="an index's cache.db")
    parser.add_argument("--src", default="", help="import `service` from this checkout")
    parser.add_argument("--calls", type=int, default=2)
    parser.add_argument("--tool", action="store_true", help="find_communities through the dispatch chain")
    parser.add_argument("--notes", type=int, default=10_000, help="--tool: the standard vault's notes")
    args = parser.parse_args()
    if args.tool:
        asyncio.run(through_the_tool(args.notes, args.calls))
        return
    if args.src:
        sys.path.insert(0, args.src)
    from service.graph import analytics as ga

    with sqlite3.connect(f"file:{args.db}?mode=ro", uri=True) as c:
        rows = c.execute(
            "SELECT n.path, l.target_path FROM links l JOIN notes n ON n.id = l.src_id WHERE l.target_path LIKE '%.md'"
        ).fetchall()
        notes = [str(r[0]) for r in c.execute("SELECT path FROM notes")]
    g = ga.NoteGraph.build(rows, notes)
    g.undirected()
    result: dict[str, object] = {"source": ga.__file__, "notes": len(g), "links": g.links, "calls": []}
    for _ in range(args.calls):
        looks: list[float] = []
        limit = ga.Limit(turns=lambda looks=looks: looks.append(time.perf_counter()))
        t0, c0 = time.perf_counter(), time.process_time()
        found = ga.communities(g, limit=limit)
        t1 = time.perf_counter()
        stamps = [t0, *looks, t1]
        gap = max(b - a for a, b in zip(stamps, stamps[1:], strict=False))
        result["calls"].append(  # type: ignore[attr-defined]
            {
                "wall_s": round(t1 - t0, 3),
                "cpu_s": round(time.process_time() - c0, 3),
                "looks": len(looks),
                "longest_stretch_ms": round(gap * 1000, 2),
            }
        )
    result.update(modularity=round(found.modularity, 6), groups=len(found.groups), largest=len(found.groups[0]))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
