"""Dataview TASK queries over a whole large vault: a plain TASK, TASK ... SORT and TASK ... GROUP BY,
each query's seconds, outcome and peak memory — old and new servers alternated.

Run: `python -m tests.bench.bench_dataview_tasks VAULT --old TREE [--new TREE] [--rounds 2]
[--budget-s 60] [--only NAME ...]`, VAULT a
copy of the generated vault whose index the servers share (XDG_CACHE_HOME / XDG_DATA_HOME or
VAULTGATE_BENCH_DIR as in bench_dataview_scale), each TREE a worktree of a commit to compare (its
`service` package is run with this interpreter; new defaults to this checkout). For each round and
tree: a `vaultgate serve` subprocess without embeddings and with a 60 s Dataview budget (`[search]
regex_max_budget_ms`, so that both finish and their times compare: the default 10 s ends a slow
one; `--budget-s 10` for the default), the page image built (`LIST LIMIT 1`), then each query
(limit 50; `--only` some of them) with the server's peak RSS reset before it (`clear_refs` 5) and
read after it (VmHWM), and its RSS 5 s later. Prints one JSON object (tests/bench/common.py). Not
a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from mcp import Client

from tests.bench.common import BENCH_ENV, ServerProcess, report, rss_mb, wait_ready

QUERIES = {
    "task": "TASK",
    "task_sort": "TASK SORT text DESC",
    "task_sort_limit": "TASK SORT text DESC LIMIT 100",
    "task_group": "TASK GROUP BY completed",
}


def _reset_peak(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM := current RSS


async def one(tree: str, vault: Path, budget_s: float, queries: dict[str, str]) -> dict[str, Any]:
    argv = [sys.executable, "-m", "service", "serve", str(vault), "--port", "0"]
    env = {**BENCH_ENV, "VAULTGATE_EMBEDDINGS__PROVIDER": "none", "PYTHONPATH": tree}
    env["VAULTGATE_SEARCH__REGEX_MAX_BUDGET_MS"] = str(int(budget_s * 1000))  # the Dataview query budget
    cwd = os.getcwd()
    os.chdir(tree)  # `python -m service` imports the tree's package
    server = ServerProcess(argv, env=env)
    try:
        server.start(timeout=600)
    finally:
        os.chdir(cwd)
    out: dict[str, Any] = {"tree": tree}
    try:
        out["ready_s"] = round(await wait_ready(server.url, 1800), 1)
        async with Client(server.url, mode="legacy", cache=None) as client:
            t0 = time.perf_counter()
            await client.call_tool("search_dql", {"query": "LIST LIMIT 1"})
            out["pages_built_s"] = round(time.perf_counter() - t0, 1)
            await asyncio.sleep(3)
            for name, query in queries.items():
                before = rss_mb(server.pid)
                _reset_peak(server.pid)
                t0 = time.perf_counter()
                result = await client.call_tool("search_dql", {"query": query, "limit": 50})
                took = time.perf_counter() - t0
                content = result.structured_content or {}
                outcome = content.get("total") if not result.is_error else (content.get("error") or {}).get("code")
                peak = rss_mb(server.pid, "VmHWM")
                out[name] = {"s": round(took, 2), "outcome": outcome, "rss_before_mb": before, "peak_mb": peak}
                out[name]["peak_over_before_mb"] = round(peak - before, 1)
                await asyncio.sleep(5)
                out[name]["rss_5s_after_mb"] = rss_mb(server.pid)
    except Exception as exc:  # noqa: BLE001 - a run that failed is reported, the others still run
        out["error"] = repr(exc)[:300]
    finally:
        server.stop()
    return out


def _median(runs: list[dict[str, Any]], name: str, key: str) -> float:
    values = [float(r[name][key]) for r in runs if isinstance(r.get(name), dict)]
    return round(statistics.median(values), 2) if values else float("nan")


async def main(vault: Path, old: str, new: str, rounds: int, budget_s: float, only: list[str]) -> None:
    queries = {name: q for name, q in QUERIES.items() if not only or name in only}
    runs: list[dict[str, Any]] = []
    for _ in range(rounds):
        for tree in (old, new):
            runs.append(await one(tree, vault, budget_s, queries))
    summary: dict[str, Any] = {}
    for label, tree in (("old", old), ("new", new)):
        mine = [r for r in runs if r["tree"] == tree]
        summary[label] = {
            name: {key: _median(mine, name, key) for key in ("s", "peak_over_before_mb")} for name in queries
        }
    ratios = {
        name: {
            key: round(summary["old"][name][key] / summary["new"][name][key], 2) if summary["new"][name][key] else None
            for key in ("s", "peak_over_before_mb")
        }
        for name in queries
    }
    load = [round(x, 1) for x in os.getloadavg()]
    out = {"budget_s": budget_s, "summary": summary, "old_over_new": ratios, "runs": runs, "load_after": load}
    report("dataview_tasks", out)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("vault", type=Path)
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", default=str(Path(__file__).resolve().parents[2]))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--budget-s", type=float, default=60.0)
    parser.add_argument("--only", nargs="*", default=[], choices=list(QUERIES))
    a = parser.parse_args()
    asyncio.run(main(a.vault, a.old, a.new, a.rounds, a.budget_s, a.only))
