"""Bases benchmark on the standard workload, through the real SDK client over HTTP.

Run: `python -m tests.bench.bench_bases [--notes 10000] [--rounds 20]`. Against a `vaultgate
serve` subprocess on a copy of the generated vault (index built first), measures end to end:
- the first query_base after start (builds the index snapshot the later queries reuse);
- a property filter (`status == "<one of the statuses>"`, a table of three columns), p50/p95;
- a grouped view with summaries (all notes with a `proj/...` tag grouped by status, Average of
  priority, Max of rating, Filled of author, Unique of status), p50/p95;
- the same filter as a formula-heavy view (two formulas, one referencing the other), p50/p95;
- for each, the server process's CPU milliseconds per call (from /proc), which a busy machine
  does not inflate the way it inflates wall times.
Prints one JSON object (see tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client

from tests.bench.common import (
    BENCH_ENV,
    ServerProcess,
    report,
    rss_mb,
    standard_vault,
    summary_ms,
    vaultgate_argv,
    wait_ready,
)
from tests.bench.workload_words import STATUSES

PROPERTY_FILTER = """\
filters: 'status == "STATUS"'
views:
  - type: table
    name: By status
    order: [file.name, status, priority]
"""

GROUPED = """\
filters: file.hasTag("proj")
views:
  - type: table
    name: Grouped
    groupBy: {property: status, direction: ASC}
    order: [file.name, priority, rating, author, status]
    sort: [{property: priority, direction: DESC}]
    summaries: {priority: Average, rating: Max, author: Filled, status: Unique}
"""

FORMULAS = """\
filters: 'status == "STATUS" && priority >= 2'
formulas:
  score: '(priority * 2 + if(rating, rating, 0)).round(1)'
  label: 'file.basename + " (" + formula.score + ")"'
views:
  - type: table
    name: Scored
    order: [file.name, formula.score, formula.label]
    sort: [{property: formula.score, direction: DESC}]
"""


async def call(client: Client, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool("query_base", args)
    if result.is_error or result.structured_content is None:
        raise RuntimeError(f"query_base failed: {result.structured_content}")
    out: dict[str, Any] = result.structured_content
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (/proc/PID/stat): what a query costs the server,
    whatever else the machine runs (wall times on a busy machine include waiting for a core)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def timed(client: Client, calls: list[dict[str, Any]]) -> tuple[list[float], list[dict[str, Any]]]:
    samples, outs = [], []
    for args in calls:
        t0 = time.perf_counter()
        outs.append(await call(client, args))
        samples.append(time.perf_counter() - t0)
    return samples, outs


async def measured(client: Client, calls: list[dict[str, Any]], pid: int) -> tuple[dict[str, Any], list[Any]]:
    """Wall-time percentiles of `calls` plus the server's mean CPU milliseconds per call."""
    cpu0 = cpu_seconds(pid)
    samples, outs = await timed(client, calls)
    stats = summary_ms(samples) | {"server_cpu_ms_per_call": round((cpu_seconds(pid) - cpu0) * 1000 / len(calls), 1)}
    return stats, outs


async def main(notes: int, rounds: int) -> None:
    source, _ = standard_vault(notes)
    result: dict[str, Any] = {"notes": notes, "rounds": rounds}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".vaultgate"))
        env = BENCH_ENV | {"VAULTGATE_EMBEDDINGS__PROVIDER": "none"}  # no embedding job sharing the cores
        cold = ServerProcess(vaultgate_argv(root), env=env)
        try:  # a cold index first (its deferred trigram index is built after ready), then a warm restart
            cold.start()
            result["index_ready_s"] = round(await wait_ready(cold.url), 3)
        finally:
            cold.stop()
        server = ServerProcess(vaultgate_argv(root), env=env)
        try:
            server.start()
            await wait_ready(server.url)
            for _ in range(60):  # until background index work (the deferred trigram index) is done
                cpu0 = cpu_seconds(server.pid)
                await asyncio.sleep(2)
                idle = (cpu_seconds(server.pid) - cpu0) * 1000 / 2
                if idle < 50:
                    break
            result["server_idle_cpu_ms_per_s"] = round(idle, 1)
            async with Client(server.url, mode="legacy", cache=None) as client:
                first, _ = await timed(client, [{"yaml": PROPERTY_FILTER.replace("STATUS", "active"), "limit": 50}])
                result["first_query_ms"] = round(first[0] * 1000, 1)
                filters = [{"yaml": PROPERTY_FILTER.replace("STATUS", s), "limit": 50} for s in STATUSES] * rounds
                result["property_filter"], outs = await measured(client, filters, server.pid)
                result["property_filter_rows"] = [o["total"] for o in outs[: len(STATUSES)]]
                result["grouped_with_summaries"], gouts = await measured(
                    client, [{"yaml": GROUPED, "limit": 50}] * rounds * 3, server.pid
                )
                result["grouped_rows"] = gouts[0]["total"]
                result["grouped_groups"] = gouts[0]["group_count"]
                scored = [{"yaml": FORMULAS.replace("STATUS", s), "limit": 50} for s in STATUSES] * rounds
                result["formulas_sorted"], _ = await measured(client, scored, server.pid)
            result["rss_mb"] = rss_mb(server.pid)
        finally:
            server.stop()
    report("bench_bases", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.rounds))
