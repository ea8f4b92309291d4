"""The semantic tools' latency after a start, this checkout against another source tree (A B A B).

Run:

    python -m tests.bench.bench_semantic_ab --index DIR [--old SRC] [--rounds 3] [--calls 40]

`--index` is the index folder (`[storage] cache_dir`) of the standard workload (tests/bench/
workload.py, generated under $VAULTGATE_BENCH_DIR) with every chunk embedded by the built-in
model; it is never served itself: each round serves a fresh copy of it per side. Making one:
serve the workload with `VAULTGATE_STORAGE__CACHE_DIR=DIR` until `index_status` shows no
embedding backlog (13 minutes of two cores), then stop the server.

Per round and side: a `vaultgate serve` subprocess from that side's source tree (`--old SRC`, or
this checkout) on the copy; once its index is ready, every chunk embedded and the server idle,
the first `--calls` calls of each tool in the order of TOOLS through the MCP SDK client over
HTTP: the workload's queries in order (`find_similar`: the first notes by path). Per tool the
wall p50 at the client and the p50 of the server's CPU time per call (all its threads), and per
side the medians of the rounds' p50s, with the new/old ratios. The structured results of the
first round of each side are compared whole (`identical`: every call's answer equal to the
other side's); `--dump DIR` writes them as JSON. Prints one JSON object (tests/bench/common.py).
Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from mcp import Client

from tests.bench.bench_quality import wait_embedded
from tests.bench.bench_search import call
from tests.bench.common import (
    BENCH_ENV,
    WORKDIR,
    ServerProcess,
    percentile,
    report,
    standard_vault,
    thread_cpu_ns,
    vaultgate_argv,
    wait_ready,
)

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ("search_semantic", "search_hybrid", "find_similar", "context_for_query", "rag_search", "graphrag_query")


def args_of(tool: str, query: str, note: str) -> dict[str, Any]:
    return {
        "search_semantic": {"query": query, "limit": 10},
        "search_hybrid": {"query": query, "limit": 10},
        "find_similar": {"path": note, "limit": 10},
        "context_for_query": {"query": query, "max_tokens": 2000},
        "rag_search": {"query": query, "max_results": 10},
        "graphrag_query": {"query": query, "limit": 10, "hops": 2},
    }[tool]


def _settle(pid: int, quiet_ms: float = 30.0, limit_s: float = 120.0) -> None:
    """Wait until the server spends under `quiet_ms` of CPU in a second (background work done)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        c0 = thread_cpu_ns(pid)
        time.sleep(1.0)
        if (thread_cpu_ns(pid) - c0) / 1e6 < quiet_ms:
            return


async def one_side(
    src: Path, index: Path, vault: Path, queries: list[str], notes: list[str], calls: int, tools: list[str]
) -> dict[str, Any]:
    work = WORKDIR / "semantic-ab-index"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(index, work)
    env = {
        **BENCH_ENV,
        "PYTHONPATH": str(src),
        "PYTHONSAFEPATH": "1",  # `python -m` would put the working directory (this checkout) first
        "VAULTGATE_STORAGE__CACHE_DIR": str(work),
    }
    server = ServerProcess(vaultgate_argv(vault), env=env)
    out: dict[str, Any] = {"tools": {}, "answers": {}}
    try:
        url = server.start()
        await wait_ready(url)
        await wait_embedded(url)
        await asyncio.to_thread(_settle, server.pid)
        out["load_1min"] = os.getloadavg()[0]
        async with Client(url, mode="legacy", cache=None) as client:
            for tool in tools:
                walls: list[float] = []
                cpus: list[float] = []
                answers: list[Any] = []
                for i in range(calls):
                    args = args_of(tool, queries[i % len(queries)], notes[i % len(notes)])
                    c0, t0 = thread_cpu_ns(server.pid), time.perf_counter()
                    answers.append(await call(client, tool, args))
                    walls.append((time.perf_counter() - t0) * 1000)
                    cpus.append((thread_cpu_ns(server.pid) - c0) / 1e6)
                out["tools"][tool] = {"wall_p50_ms": percentile(walls, 50), "cpu_p50_ms": percentile(cpus, 50)}
                out["answers"][tool] = answers
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    return out


async def main(ns: argparse.Namespace) -> None:
    vault, meta = standard_vault(10_000)
    queries = [q["q"] for q in meta["queries"]]
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))[: ns.calls]
    tools = ns.tools.split(",") if ns.tools else list(TOOLS)
    sides = {**({"old": ns.old} if ns.old is not None else {}), "new": ROOT}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in sides}
    loads: list[float] = []
    for _ in range(ns.rounds):
        for name, src in sides.items():
            run = await one_side(src, ns.index, vault, queries, notes, ns.calls, tools)
            loads.append(run["load_1min"])
            runs[name].append(run)
    result: dict[str, Any] = {
        "calls_per_tool": ns.calls,
        "rounds": ns.rounds,
        "old_src": str(ns.old) if ns.old else None,
        "load_1min": {"min": min(loads), "median": statistics.median(loads), "max": max(loads)},
    }
    for name, side in runs.items():
        result[name] = {
            tool: {
                key: round(statistics.median(r["tools"][tool][key] for r in side), 2)
                for key in ("wall_p50_ms", "cpu_p50_ms")
            }
            | {"cpu_p50_rounds": [round(r["tools"][tool]["cpu_p50_ms"], 1) for r in side]}
            for tool in tools
        }
        if ns.dump:
            ns.dump.mkdir(parents=True, exist_ok=True)
            (ns.dump / f"{name}.json").write_text(json.dumps(side[0]["answers"], indent=1, sort_keys=True))
    if "old" in runs:
        result["new_over_old"] = {
            tool: {
                key: round(result["new"][tool][key] / result["old"][tool][key], 3)
                for key in ("wall_p50_ms", "cpu_p50_ms")
            }
            for tool in tools
        }
        first_old, first_new = runs["old"][0]["answers"], runs["new"][0]["answers"]
        result["identical"] = {tool: first_old[tool] == first_new[tool] for tool in tools}
    report("bench_semantic_ab", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True, help="a fully embedded index folder (kept unchanged)")
    parser.add_argument("--old", type=Path, default=None, help="the other source tree (e.g. main's, unpacked)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=40, help="calls per tool after each start")
    parser.add_argument("--tools", default="", help=f"comma-separated, default: {','.join(TOOLS)}")
    parser.add_argument("--dump", type=Path, default=None, help="write each side's first-round answers here")
    asyncio.run(main(parser.parse_args()))
