"""Bases and Dataview queries in-process, with the CPU time of each call (issue 17).

Run: `python -m tests.bench.bench_query_cpu [--notes 10000] [--rounds 20] [CASE ...]`. Starts the
app in this process on a copy of the standard workload (tests/bench/workload.py; its index is
kept under the bench folder and reused), waits for the index and for background work to settle,
then calls through the full dispatch chain: the first query_base and search_dql after start,
then each case `rounds` times. Per case it prints the p50 wall time and the p50 of the process's
CPU time per call, which a busy machine inflates much less than wall time: to compare two
versions, run this alternately on each (A B A B) and compare the medians. Cases: the
`bench_bases` views (property filter, grouped view with summaries, chained formulas) and their
Dataview counterparts (a property filter, a GROUP BY with an aggregate, a TASK query).
Prints one JSON object (see tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import time
from collections.abc import Callable
from typing import Any

from tests.bench.bench_bases import FORMULAS, GROUPED, PROPERTY_FILTER
from tests.bench.common import WORKDIR, report, standard_vault
from tests.bench.workload_words import STATUSES

Call = Callable[[int], tuple[str, dict[str, Any]]]
CASES: dict[str, Call] = {
    "base_filter": lambda i: ("query_base", {"yaml": PROPERTY_FILTER.replace("STATUS", STATUSES[i % 7]), "limit": 50}),
    "base_grouped": lambda i: ("query_base", {"yaml": GROUPED, "limit": 50}),
    "base_formulas": lambda i: ("query_base", {"yaml": FORMULAS.replace("STATUS", STATUSES[i % 7]), "limit": 50}),
    "dql_filter": lambda i: ("search_dql", {"query": f'LIST WHERE status = "{STATUSES[i % 7]}"', "limit": 50}),
    "dql_grouped": lambda i: (
        "search_dql",
        {"query": "TABLE length(rows) AS n, min(rows.file.mtime) AS first GROUP BY status", "limit": 50},
    ),
    "dql_tasks": lambda i: ("search_dql", {"query": "TASK WHERE !completed LIMIT 50", "limit": 50}),
}


async def main(notes: int, rounds: int, only: list[str]) -> None:
    from tests.conftest import started

    source, _ = standard_vault(notes)
    vault = WORKDIR / f"query-cpu-{notes}" / "vault"
    if not vault.exists():
        shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".vaultgate"))
    result: dict[str, Any] = {"notes": notes, "rounds": rounds}
    async with started(vault, storage={"cache_dir": str(vault.parent / "cache")}) as vg:
        t0 = time.perf_counter()
        await vg.indexed(1800)
        result["index_ready_s"] = round(time.perf_counter() - t0, 2)
        for _ in range(120):  # until background work (deferred indexes, the query images) is done
            cpu0 = time.process_time()
            await asyncio.sleep(1)
            if time.process_time() - cpu0 < 0.05:
                break
        for tool, case in (("query_base", "base_filter"), ("search_dql", "dql_filter")):
            cpu0, wall0 = time.process_time(), time.perf_counter()
            await vg.ok(tool, **CASES[case](0)[1])
            result[f"first_{tool}"] = {
                "wall_ms": round((time.perf_counter() - wall0) * 1000, 1),
                "cpu_ms": round((time.process_time() - cpu0) * 1000, 1),
            }
        for case, make in CASES.items():
            if only and case not in only:
                continue
            walls, cpus = [], []
            out: dict[str, Any] = {}
            for i in range(rounds):
                tool, args = make(i)
                cpu0, wall0 = time.process_time(), time.perf_counter()
                out = await vg.ok(tool, **args)
                walls.append(time.perf_counter() - wall0)
                cpus.append(time.process_time() - cpu0)
            result[case] = {
                "wall_p50_ms": round(statistics.median(walls) * 1000, 1),
                "cpu_p50_ms": round(statistics.median(cpus) * 1000, 1),
                "total": out.get("total"),
            }
    report("bench_query_cpu", result)


if __name__ == "__main__":  # worker processes of the index's bulk load import this module again
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("cases", nargs="*", help=f"some of: {' '.join(CASES)} (default: all)")
    ns = parser.parse_args()
    if unknown := set(ns.cases) - set(CASES):
        parser.error(f"unknown cases: {' '.join(sorted(unknown))}")
    asyncio.run(main(ns.notes, ns.rounds, ns.cases))
