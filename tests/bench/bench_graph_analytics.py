"""Graph analytics benchmark: central_notes, shortest_path, find_communities, suggest_links on the
standard vault (tests/bench/workload.py).

Run: `python -m tests.bench.bench_graph_analytics [--notes 10000] [--calls 20] [--pages 40]`. Drives the tools
in-process through the full dispatch chain and prints one JSON object (tests/bench/common.py):
for each tool the first call after indexing (`cold_ms`: builds the caller's graph view and
computes) and the p50/p95 of the following calls (the view and its scores are kept per index
generation), suggest_links over the vault page after page (`--pages`, following the cursor), the
resident memory before and after, and the graph's size. Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from typing import Any

from tests.bench.common import report, rss_mb, standard_vault, summary_ms
from tests.conftest import Harness, started


async def _cold_then_warm(vg: Harness, tool: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    t0 = time.perf_counter()
    first = await vg.ok(tool, **calls[0])
    cold = time.perf_counter() - t0
    samples: list[float] = []
    for args in calls[1:]:
        t0 = time.perf_counter()
        await vg.ok(tool, **args)
        samples.append(time.perf_counter() - t0)
    return {"cold_ms": round(cold * 1000, 1), **summary_ms(samples), "_first": first}


async def main(notes: int, calls: int, pages: int) -> None:
    root, _ = standard_vault(notes)
    result: dict[str, Any] = {"notes": notes, "python": sys.version.split()[0]}
    async with started(root) as vg:
        await vg.indexed()
        result["rss_before_mb"] = rss_mb(os.getpid())
        rows = await vg.app.services.db.fetchall("SELECT path FROM notes WHERE path LIKE '%.md' ORDER BY path")
        paths = [str(r[0]) for r in rows]
        rng = random.Random(7)
        pairs = [(rng.choice(paths), rng.choice(paths)) for _ in range(calls)]
        pr = await _cold_then_warm(vg, "central_notes", [{"measure": "pagerank"}] * calls)
        first = pr.pop("_first")
        result["graph"] = {"notes": first["notes"], "links": first["links"]}
        result["central_notes_pagerank"] = pr
        bt = await _cold_then_warm(vg, "central_notes", [{"measure": "betweenness"}] * calls)
        result["betweenness_sources"] = bt.pop("_first")["sources"]
        result["central_notes_betweenness"] = bt
        sp = await _cold_then_warm(vg, "shortest_path", [{"source": a, "target": b} for a, b in pairs])
        sp.pop("_first")
        result["shortest_path"] = sp
        fc = await _cold_then_warm(vg, "find_communities", [{}] * calls)
        got = fc.pop("_first")
        result["communities"] = {"total": got["total"], "modularity": got["modularity"]}
        result["find_communities"] = fc
        one = await _cold_then_warm(vg, "suggest_links", [{"path": p, "related": 5} for p in rng.sample(paths, calls)])
        one.pop("_first")
        result["suggest_links_note"] = one
        # The vault, page after page (limit 50), following the cursor for up to `pages` pages.
        samples: list[float] = []
        scanned = found = 0
        cursor = None
        for _ in range(pages):
            t0 = time.perf_counter()
            page = await vg.ok("suggest_links", limit=50, **({"cursor": cursor} if cursor else {}))
            samples.append(time.perf_counter() - t0)
            scanned, found, cursor = scanned + page["scanned"], found + len(page["items"]), page["next_cursor"]
            if cursor is None:
                break
        result["suggest_links_vault_pages"] = {**summary_ms(samples), "notes_scanned": scanned, "mentions": found}
        result["rss_after_mb"] = rss_mb(os.getpid())
    report("graph_analytics", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--pages", type=int, default=40)
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.calls, ns.pages))
