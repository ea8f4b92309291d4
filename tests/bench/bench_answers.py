"""Latency of the answer tools (rag_search, context_for_query, graphrag_query; search_hybrid as the
reference) through a real server and the MCP SDK client.

Run:

    python -m tests.bench.bench_answers --notes 10000 --embedder standin
    python -m tests.bench.bench_answers --vault /tmp/x/scifact --cache-dir /tmp/x/cache-scifact

Against a `vaultgate serve` subprocess. The vault is the standard workload of `--notes` notes
(tests/bench/workload.py, its own queries) or `--vault` (queries: the titles of its first notes).
`--embedder builtin` (default) uses the embedded model; `standin` a local server in this process
speaking Ollama's `/api/embed` with hashed bag-of-words vectors of `--dim` dimensions (384, as the
builtin model's) (tests/semantic/
standin.py): every chunk is embedded in seconds, so the search path itself is timed at a size the
builtin model would need hours to embed on a small machine; the query's embedding is then a
loopback HTTP call instead of the model's few milliseconds. `--cache-dir` keeps the index (and
its vectors) for the next run. The tools are called in turn on each query (A B C D, A B C D, …)
so that load on the machine falls on all alike; p50/p95 per tool. Prints one JSON object
(tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp import Client

from tests.bench.bench_quality import wait_embedded
from tests.bench.bench_search import call
from tests.bench.common import (
    BENCH_ENV,
    ServerProcess,
    report,
    rss_mb,
    standard_vault,
    summary_ms,
    thread_cpu_ns,
    vaultgate_argv,
    wait_ready,
)
from tests.semantic.standin import stand_in


def calls(query: str, budget: int, similar_to: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("search_semantic", {"query": query, "limit": 10}),
        ("find_similar", {"path": similar_to, "limit": 10}),
        ("search_hybrid", {"query": query, "limit": 10}),
        ("rag_search", {"query": query, "max_results": 10}),
        ("context_for_query", {"query": query, "max_tokens": budget}),
        ("graphrag_query", {"query": query, "limit": 10, "hops": 2}),
    ]


def titles(root: Path, n: int) -> list[str]:
    out: list[str] = []
    for path in sorted(root.rglob("*.md"))[: n * 3]:
        first = path.read_text(encoding="utf-8").splitlines()[:1]
        title = first[0].lstrip("# ").strip() if first else ""
        if len(title) > 10:
            out.append(title)
        if len(out) >= n:
            break
    return out


@contextlib.asynccontextmanager
async def embedder(kind: str, dim: int) -> AsyncIterator[dict[str, str]]:
    if kind == "builtin":
        yield {}
        return
    async with stand_in(dim) as api:
        yield {
            "VAULTGATE_EMBEDDINGS__PROVIDER": "ollama",
            "VAULTGATE_EMBEDDINGS__BASE_URL": api.url,
            "VAULTGATE_EMBEDDINGS__MODEL": f"standin-hash-{dim}",
            "VAULTGATE_EMBEDDINGS__BATCH_SIZE": "256",
        }


async def measure(url: str, pid: int, queries: list[str], notes: list[str], rounds: int, budget: int) -> dict[str, Any]:
    """Each tool's p50/p95 at the client and the server's CPU time per call (all its threads)."""
    samples: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    reached: list[int] = []
    async with Client(url, mode="legacy", cache=None) as client:
        for i, q in enumerate(queries[:5]):  # warm up: model, caches, statement cache
            for tool, args in calls(q, budget, notes[i % len(notes)]):
                await call(client, tool, args)
        for _ in range(rounds):
            for i, q in enumerate(queries):
                for tool, args in calls(q, budget, notes[i % len(notes)]):
                    c0, t0 = thread_cpu_ns(pid), time.perf_counter()
                    out = await call(client, tool, args)
                    samples.setdefault(tool, []).append(time.perf_counter() - t0)
                    cpu.setdefault(tool, []).append((thread_cpu_ns(pid) - c0) / 1e9)
                    if tool == "graphrag_query":
                        reached.append(int(out["reached"]))
    result: dict[str, Any] = {
        tool: {**summary_ms(s), "server_cpu_ms_p50": summary_ms(cpu[tool])["p50_ms"]} for tool, s in samples.items()
    }
    result["graphrag_notes_reached_mean"] = round(sum(reached) / len(reached), 1) if reached else None
    return result


async def main(ns: argparse.Namespace) -> None:
    if ns.vault is None:
        source, meta = standard_vault(ns.notes)
        queries = [q["q"] for q in meta["queries"]][: ns.queries]
        result: dict[str, Any] = {"vault": f"standard workload, {ns.notes} notes"}
    else:
        source, queries = ns.vault, titles(ns.vault, ns.queries)
        result = {"vault": ns.vault.name}
    result.update(embedder=ns.embedder, queries=len(queries), rounds=ns.rounds, context_budget_tokens=ns.budget)
    with tempfile.TemporaryDirectory() as tmp:
        root = source if ns.vault is not None else Path(tmp) / "vault"
        if ns.vault is None:
            shutil.copytree(source, root, ignore=shutil.ignore_patterns(".vaultgate", ".obsidian", ".git"))
        result["notes_in_vault"] = sum(1 for _ in root.rglob("*.md"))
        async with embedder(ns.embedder, ns.dim) as env_extra:
            env = {**BENCH_ENV, **env_extra}
            if ns.cache_dir:
                env["VAULTGATE_STORAGE__CACHE_DIR"] = str(ns.cache_dir)
            server = ServerProcess(vaultgate_argv(root), env=env)
            try:
                url = server.start()
                result["index_ready_s"] = round(await wait_ready(url), 2)
                result["embedding_s"] = round(await wait_embedded(url), 1)
                notes = [str(p.relative_to(root)) for p in sorted(root.rglob("*.md"))[: len(queries)]]
                result.update(await measure(url, server.pid, queries, notes, ns.rounds, ns.budget))
                result["server_rss_mb"] = round(rss_mb(server.pid), 1)
            finally:
                server.stop()
    report(f"bench_answers_{ns.embedder}" + (f"_{ns.vault.name}" if ns.vault else f"_{ns.notes}"), result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--vault", type=Path, default=None, help="a vault to serve in place (not copied)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="index folder kept between runs")
    parser.add_argument("--embedder", choices=("builtin", "standin"), default="builtin")
    parser.add_argument("--dim", type=int, default=384, help="the stand-in's vector size (the builtin model: 384)")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--budget", type=int, default=2000, help="context_for_query's max_tokens")
    asyncio.run(main(parser.parse_args()))
