"""Search benchmark on the standard workload, through the real SDK client over HTTP.

Run: `python -m tests.bench.bench_search [--notes 10000] [--rounds 5]`. Measures, against a
`vaultgate serve` subprocess on a copy of the generated vault:
- warm restart (index on disk) → first successful search_text, from process spawn;
- search_text p50/p95 over the generator's 50 queries (all rounds), and per frequency bucket;
- search_tags / search_properties / search_notes / search_regex / list_tags p50;
- "saved on disk by another program → found by search_text" latency (p50/p95): a file with a
  fresh word is written directly and searched for until found;
- server RSS after the run.
Prints one JSON object (see tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from collections import defaultdict
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


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    if result.is_error or result.structured_content is None:
        raise RuntimeError(f"{tool} failed: {result.structured_content}")
    return result.structured_content


async def timed(client: Client, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[float], list[Any]]:
    samples: list[float] = []
    outs: list[Any] = []
    for tool, args in calls:
        t0 = time.perf_counter()
        outs.append(await call(client, tool, args))
        samples.append(time.perf_counter() - t0)
    return samples, outs


async def first_search(server: ServerProcess, query: str) -> float:
    url = server.start()
    async with Client(url, mode="legacy", cache=None) as client:
        while True:
            out = await call(client, "search_text", {"query": query, "limit": 5})
            if out["items"]:
                return time.perf_counter() - server.t_spawn
            await asyncio.sleep(0.02)


async def save_to_searchable(client: Client, root: Path, n: int) -> list[float]:
    samples: list[float] = []
    for i in range(n):
        word = f"zqxbenchword{i:04d}"
        path = root / "Inbox" / f"bench-saved-{i}.md"
        t0 = time.perf_counter()
        path.write_text(f"# Saved {i}\n\nThe {word} appears here.\n", encoding="utf-8")
        while True:
            out = await call(client, "search_text", {"query": word, "limit": 1})
            if out["items"]:
                samples.append(time.perf_counter() - t0)
                break
            if time.perf_counter() - t0 > 30:
                raise TimeoutError(f"{word} never became searchable")
            await asyncio.sleep(0.005)
    return samples


async def main(notes: int, rounds: int) -> None:
    source, meta = standard_vault(notes)
    queries = meta["queries"]
    result: dict[str, Any] = {"notes": notes, "queries": len(queries), "rounds": rounds}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".vaultgate"))
        cold = ServerProcess(vaultgate_argv(root), env=BENCH_ENV)
        try:
            cold.start()
            result["cold_index_ready_s"] = round(await wait_ready(cold.url), 3)
        finally:
            cold.stop()
        server = ServerProcess(vaultgate_argv(root), env=BENCH_ENV)
        try:
            result["warm_start_to_first_search_s"] = round(await first_search(server, queries[0]["q"]), 3)
            await wait_ready(server.url)
            async with Client(server.url, mode="legacy", cache=None) as client:
                calls = [("search_text", {"query": q["q"], "limit": 10}) for q in queries] * rounds
                await timed(client, calls[: len(queries)])  # warm the page cache once
                samples, outs = await timed(client, calls)
                result["search_text"] = summary_ms(samples)
                by_bucket: dict[str, list[float]] = defaultdict(list)
                for (_, args), s in zip(calls, samples, strict=True):
                    bucket = next(q["bucket"] for q in queries if q["q"] == args["query"])
                    by_bucket[bucket].append(s)
                result["search_text_by_bucket"] = {b: summary_ms(v) for b, v in sorted(by_bucket.items())}
                result["search_text_hits_first_query"] = len(outs[0]["items"])

                tag_list = (await call(client, "list_tags", {"sort": "count", "limit": 20}))["items"]
                tags = [t["tag"] for t in tag_list]
                lt, _ = await timed(client, [("list_tags", {})] * 10)
                result["list_tags_all"] = summary_ms(lt)
                tag_calls = [("search_tags", {"tags": [t], "limit": 20}) for t in tags] * 3
                tag_calls += [
                    ("search_tags", {"tags": tags[i : i + 2], "match": "all", "limit": 20}) for i in range(10)
                ]
                st, _ = await timed(client, tag_calls)
                result["search_tags"] = summary_ms(st)

                keys = (await call(client, "list_properties", {}))["items"]
                prop_calls: list[tuple[str, dict[str, Any]]] = []
                for info in keys[:10]:
                    prop_calls.append(("search_properties", {"filters": [{"key": info["key"], "op": "exists"}]}))
                    values = (await call(client, "property_values", {"key": info["key"], "limit": 3}))["items"]
                    for v in values:
                        if isinstance(v["value"], (str, int, float)) and not isinstance(v["value"], bool):
                            prop_calls.append(
                                (
                                    "search_properties",
                                    {"filters": [{"key": info["key"], "op": "==", "value": v["value"]}]},
                                )
                            )
                sp, _ = await timed(client, prop_calls * 2)
                result["search_properties"] = summary_ms(sp)
                result["property_keys"] = len(keys)

                sn_calls = [("search_notes", {"mode": "full_text", "query": q["q"], "limit": 20}) for q in queries]
                sn, _ = await timed(client, sn_calls)
                result["search_notes_full_text"] = summary_ms(sn)
                patterns = [r"kubernetes \w+", r"\b\d{4}-\d{2}-\d{2}\b", r"TODO|FIXME", r"postgres(ql)?", r"^## Risks$"]
                rg, rg_out = await timed(client, [("search_regex", {"pattern": p, "limit": 20}) for p in patterns] * 2)
                result["search_regex"] = summary_ms(rg)
                result["search_regex_prefiltered"] = [o["prefiltered"] for o in rg_out[: len(patterns)]]

                saved = await save_to_searchable(client, root, 40)
                result["saved_on_disk_to_searchable"] = summary_ms(saved)
            result["rss_mb"] = rss_mb(server.pid)
        finally:
            server.stop()
    report("bench_search", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.rounds))
