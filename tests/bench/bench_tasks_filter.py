"""tasks_filter benchmark on the standard workload, through the real SDK client over HTTP.

Run: `python -m tests.bench.bench_tasks_filter [--notes 10000] [--rounds 30] [--baseline DIR]`.
Against a `vaultgate serve` subprocess on a copy of the generated vault, after the index is ready,
each query below is timed end to end (p50/p95), alternated call by call with list_tasks of the
open tasks (the plain SQL-backed listing) so that a loaded machine shows in both. With
`--baseline DIR` (a source tree of another version:
`git archive <commit> service migrations | tar -x -C DIR`), a second server runs that version on
its own copy of the vault and each call is alternated with the same call to it instead: old and
new measured in one run. First `dates_from_index`: the date query while the index answers it
alone (no query has built the task records yet); then every query once (`first_ms`; the first
one that needs the records builds them), then round by round over all queries, so that load on
the shared machine falls on all of them alike. The servers run without embeddings. Prints one
JSON object (see tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
    "urgency": "not done\nhappens before in two weeks\nsort by urgency",
    "default_order_all": "not done",
    "function": "not done\nfilter by function task.due.moment?.isBefore(moment()) && task.file.folder.includes('a')\n"
    "sort by function task.description.length",
}


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    if result.is_error or result.structured_content is None:
        raise RuntimeError(f"{tool} failed: {result.structured_content}")
    return result.structured_content


async def measure(
    result: dict[str, Any],
    client: Client,
    other: Client,
    name: str,
    query: str,
    rounds: int,
    baseline: Path | None,
    base: dict[str, Any],
) -> None:
    """One query alone, alternated call by call with the baseline's answer to it (or list_tasks)."""
    args = {"query": query, "today": "2026-06-01", "limit": 50}
    pair: tuple[str, dict[str, Any]] = ("tasks_filter", args) if baseline else ("list_tasks", base)
    await call(client, "tasks_filter", args)
    await call(other, *pair)
    samples, paired, out = [], [], {}
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = await call(client, "tasks_filter", args)
        samples.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        await call(other, *pair)
        paired.append(time.perf_counter() - t0)
    result[name] = {"query": query, "matches": out["total"], **summary_ms(samples)}
    result[f"{name}_{'baseline' if baseline else 'list_tasks_open'}"] = summary_ms(paired)


async def main(notes: int, rounds: int, baseline: Path | None) -> None:
    source, _ = standard_vault(notes)
    result: dict[str, Any] = {"notes": notes, "rounds": rounds, "baseline": str(baseline) if baseline else None}
    env = {**BENCH_ENV, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
    with tempfile.TemporaryDirectory() as tmp:
        servers: list[ServerProcess] = []
        for name in ("vault", "baseline") if baseline else ("vault",):
            root = Path(tmp) / name
            shutil.copytree(source, root, ignore=shutil.ignore_patterns(".vaultgate"))
            argv = vaultgate_argv(root)
            if name == "baseline":  # -P: the baseline tree, not the working directory, provides `service`
                argv = [argv[0], "-P", *argv[1:]]
            servers.append(ServerProcess(argv, env={**env, "PYTHONPATH": str(baseline)} if name == "baseline" else env))
        try:
            for server in servers:
                server.start()
                await wait_ready(server.url)
            async with contextlib.AsyncExitStack() as stack:
                clients = [await stack.enter_async_context(Client(s.url, mode="legacy", cache=None)) for s in servers]
                client, other = clients[0], clients[-1]
                base = {"status": ["open"], "limit": 50}
                result["tasks"] = (await call(client, "list_tasks", {"limit": 1}))["total"]
                # phase 1: the index alone answers `dates`, before any query builds the task records
                await measure(result, client, other, "dates_from_index", QUERIES["dates"], rounds, baseline, base)
                # phase 2: every query once (the first builds the records), then round by round over all
                # of them, so that a burst of load on the shared machine falls on every query alike
                plans = []
                for name, query in QUERIES.items():
                    args = {"query": query, "today": "2026-06-01", "limit": 50}
                    t0 = time.perf_counter()
                    await call(client, "tasks_filter", args)
                    first = (time.perf_counter() - t0) * 1000
                    pair: tuple[str, dict[str, Any]] = ("list_tasks", base)
                    if baseline and not (await other.call_tool("tasks_filter", args)).is_error:
                        pair = ("tasks_filter", args)  # else the baseline cannot read it: list_tasks instead
                    plans.append((name, query, args, pair, first, [], [], {}))
                for _ in range(rounds):
                    for _name, _query, args, pair, _first, samples, paired, out in plans:
                        t0 = time.perf_counter()
                        out.update(await call(client, "tasks_filter", args))
                        samples.append(time.perf_counter() - t0)
                        t0 = time.perf_counter()
                        await call(other, *pair)
                        paired.append(time.perf_counter() - t0)
                for name, query, _args, pair, first, samples, paired, out in plans:
                    result[name] = {"query": query, "matches": out["total"], "first_ms": round(first, 1)}
                    result[name].update(summary_ms(samples))
                    paired_name = "baseline" if pair[0] == "tasks_filter" else "list_tasks_open"
                    result[f"{name}_{paired_name}"] = summary_ms(paired)
        finally:
            for server in servers:
                server.stop()
    report("bench_tasks_filter", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--baseline", type=Path, default=None, help="source tree of the version to compare with")
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.rounds, ns.baseline))
