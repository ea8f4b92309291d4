"""tasks_filter benchmark on the standard workload, through the real SDK client over HTTP.

Run: `python -m tests.bench.bench_tasks_filter [--notes 10000] [--rounds 30]`. Against a
`vaultgate serve` subprocess on a copy of the generated vault, after the index is ready, each
query below is timed end to end (p50/p95), alternated call by call with list_tasks of the open
tasks (the plain SQL-backed listing) so that a loaded machine shows in both. The server runs
without embeddings. Prints one JSON object (see tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client

from tests.bench.common import BENCH_ENV, ServerProcess, report, standard_vault, summary_ms, vaultgate_argv, wait_ready

QUERIES = {
    "nothing_matches": "due on 1999-01-01",  # the floor: a call that finds nothing
    "dates": "not done\ndue before in two weeks\nsort by due",
    "boolean_grouped": "not done\n(description includes the) OR (tags include #) AND NOT (path includes archive)\n"
    "group by root\nsort by description",
    "everything_sorted": "sort by priority\nsort by path\nlimit 100",
}


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    if result.is_error or result.structured_content is None:
        raise RuntimeError(f"{tool} failed: {result.structured_content}")
    return result.structured_content


async def main(notes: int, rounds: int) -> None:
    source, _ = standard_vault(notes)
    result: dict[str, Any] = {"notes": notes, "rounds": rounds}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".vaultgate"))
        server = ServerProcess(vaultgate_argv(root), env={**BENCH_ENV, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"})
        try:
            server.start()
            await wait_ready(server.url)
            async with Client(server.url, mode="legacy", cache=None) as client:
                base = {"status": ["open"], "limit": 50}
                result["tasks"] = (await call(client, "list_tasks", {"limit": 1}))["total"]
                for name, query in QUERIES.items():
                    args = {"query": query, "today": "2026-06-01", "limit": 50}
                    await call(client, "tasks_filter", args)  # warm
                    samples, baseline, out = [], [], {}
                    for _ in range(rounds):
                        t0 = time.perf_counter()
                        out = await call(client, "tasks_filter", args)
                        samples.append(time.perf_counter() - t0)
                        t0 = time.perf_counter()
                        await call(client, "list_tasks", base)
                        baseline.append(time.perf_counter() - t0)
                    result[name] = {"query": query, "matches": out["total"], **summary_ms(samples)}
                    result[f"{name}_list_tasks_open"] = summary_ms(baseline)
        finally:
            server.stop()
    report("bench_tasks_filter", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=30)
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.rounds))
