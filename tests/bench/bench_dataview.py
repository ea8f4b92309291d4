"""Dataview benchmark on the standard workload, through the real SDK client over HTTP.

Run: `python -m tests.bench.bench_dataview [--notes 10000] [--rounds 20]`. Against a
`vaultgate serve` subprocess on a copy of the generated vault, after the index is ready:
- the first search_dql (builds the page cache from the index);
- a property filter (`LIST WHERE <key> = <value>`, p50/p95) and a grouped query
  (`TABLE length(rows), min(rows.file.mtime) GROUP BY <key>`, p50/p95), end to end, each
  alternated call by call with search_properties on the same condition (the SQL-backed tool)
  so that a loaded machine shows in both; the ratio is the comparable figure.
The server runs without embeddings (their background job would compete for the CPU).
Prints one JSON object (see tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client

from tests.bench.common import BENCH_ENV, ServerProcess, report, standard_vault, summary_ms, vaultgate_argv, wait_ready


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    if result.is_error or result.structured_content is None:
        raise RuntimeError(f"{tool} failed: {result.structured_content}")
    return result.structured_content


async def timed(
    client: Client, args: dict[str, Any], base: dict[str, Any], rounds: int
) -> tuple[list[float], list[float], dict[str, Any]]:
    """search_dql with `args` and search_properties with `base`, alternated (A B A B ...)."""
    samples, baseline, out = [], [], {}
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = await call(client, "search_dql", args)
        samples.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        await call(client, "search_properties", base)
        baseline.append(time.perf_counter() - t0)
    return samples, baseline, out


def _ratio(a: list[float], b: list[float]) -> float:
    return round(statistics.median(a) / statistics.median(b), 2)


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
                keys = (await call(client, "list_properties", {}))["items"]
                key = next(k["key"] for k in keys if k["key"] not in ("tags", "aliases"))
                value = (await call(client, "property_values", {"key": key, "limit": 1}))["items"][0]["value"]
                literal = f'"{value}"' if isinstance(value, str) else str(value).lower()
                t0 = time.perf_counter()
                await call(client, "search_dql", {"query": "LIST LIMIT 1"})
                result["first_query_builds_cache_s"] = round(time.perf_counter() - t0, 3)
                base = {"filters": [{"key": key, "op": "==", "value": value}], "limit": 50}
                filt = {"query": f"LIST WHERE {key} = {literal}", "limit": 50}
                samples, baseline, out = await timed(client, filt, base, rounds)
                result["property_filter"] = {"query": filt["query"], "rows": out["total"], **summary_ms(samples)}
                result["search_properties_same_filter"] = summary_ms(baseline)
                result["property_filter_vs_search_properties"] = _ratio(samples, baseline)
                grouped = {"query": f"TABLE length(rows) AS n, min(rows.file.mtime) AS first GROUP BY {key}"}
                samples, baseline, out = await timed(client, grouped, base, rounds)
                result["grouped"] = {"query": grouped["query"], "groups": out["total"], **summary_ms(samples)}
                result["grouped_vs_search_properties"] = _ratio(samples, baseline)
        finally:
            server.stop()
    report("bench_dataview", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.rounds))
