"""Many agents at once: N SDK clients over Streamable HTTP mixing reads, searches and writes on
one server, for a fixed time; also the soak (run it for minutes and watch memory).

    python -m tests.bench.bench_mixed --clients 32 --seconds 60 [--procs 4] [--notes 10000] [--src DIR]

Per operation p50/p95/p99 at the client, total calls per second, errors by code, the server's CPU
per call and the clients' (they share the machine), the load average at the end, and the
server's RSS sampled every second (start, end, peak, growth, and growth over the second half,
once caches have filled). `--src DIR` runs the server from another source tree (e.g. a
checkout of the previous commit), so old and new can be compared in turns on one machine.

The SDK client costs more CPU per call than the server does, so 32 clients in one Python process
saturate one core and measure the client. `--procs N` spreads the clients over N worker
processes (results merged). Independently of where the clients run, `server` reports the
latency the server itself saw: p50/p95 per operation from the `vaultgate_tool_call_duration_seconds`
histogram (the tool call in the dispatch chain, scraped from /metrics before and after; interpolated
within buckets as Prometheus' `histogram_quantile` does), without the HTTP transport or client time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
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

ROOT = Path(__file__).resolve().parents[2]
CPU_KEY = "client_cpu_ms"  # carried with the error counts from a worker; not an error

# (operation, weight): what an agent fleet does, mostly reading.
MIX = (
    ("read_note", 35),
    ("search_text", 20),
    ("create_note", 10),
    ("append_note", 15),
    ("patch_note", 10),
    ("list_notes", 10),
)


async def agent(
    url: str, who: int, start: float, until: float, paths: list[str], words: list[str], seed: int
) -> tuple[dict[str, list[float]], Counter[str]]:
    """One agent: connects and writes its own note, waits for `start`, then calls until `until`
    (wall-clock `time.time()`, shared by worker processes)."""
    rng = random.Random(seed)
    times: dict[str, list[float]] = defaultdict(list)
    errors: Counter[str] = Counter()
    ops = [op for op, weight in MIX for _ in range(weight)]
    own = f"Agents/agent-{who}.md"
    made = 0
    async with Client(url, mode="legacy", cache=None) as client:
        await client.call_tool(
            "write_note", {"path": own, "content": f"# Agent {who}\n\n## Log\n", "mode": "overwrite"}
        )
        await asyncio.sleep(max(0.0, start - time.time()))
        while time.time() < until:
            op = rng.choice(ops)
            if op == "read_note":
                args: dict[str, Any] = {"path": rng.choice(paths)}
            elif op == "search_text":
                args = {"query": " ".join(rng.sample(words, 2)), "limit": 10}
            elif op == "create_note":
                made += 1
                args = {
                    "path": f"Agents/{who}/note-{made}.md",
                    "content": f"# Note {made}\n\n{' '.join(rng.sample(words, 12))}\n",
                }
            elif op == "append_note":
                args = {"path": own, "content": f"- entry {rng.random():.6f}\n"}
            elif op == "patch_note":
                args = {
                    "path": own,
                    "heading": ["Agent " + str(who), "Log"],
                    "position": "append",
                    "content": "- patched\n",
                }
            else:
                args = {"folder": "Agents", "limit": 20}
            t0 = time.perf_counter()
            result = await client.call_tool(op, args)
            times[op].append(time.perf_counter() - t0)
            if result.is_error:
                code = (result.structured_content or {}).get("error", {}).get("code", "?")
                errors[f"{op}:{code}"] += 1
    return times, errors


async def agents_here(
    url: str, first: int, count: int, start: float, until: float, paths: list[str], words: list[str]
) -> tuple[dict[str, list[float]], Counter[str]]:
    """`count` agents in this process (ids from `first`), their samples merged; the CPU this
    process spent in the measured window goes in `errors` under `CPU_KEY` (milliseconds)."""

    async def window_cpu() -> float:
        await asyncio.sleep(max(0.0, start - time.time()))
        return time.process_time()

    cpu0 = asyncio.create_task(window_cpu())
    done = await asyncio.gather(
        *(agent(url, i, start, until, paths, words, seed=i) for i in range(first, first + count))
    )
    merged: dict[str, list[float]] = defaultdict(list)
    errors: Counter[str] = Counter()
    errors[CPU_KEY] = round(1000 * (time.process_time() - await cpu0))
    for times, errs in done:
        for op, samples in times.items():
            merged[op].extend(samples)
        errors.update(errs)
    return merged, errors


async def agents_in_workers(
    url: str, clients: int, procs: int, start: float, until: float, paths: list[str], words: list[str]
) -> tuple[dict[str, list[float]], Counter[str]]:
    """The agents spread over `procs` worker processes (this module with `--worker`); each prints
    its samples as JSON on stdout. The shared inputs go through a temporary file."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump({"paths": paths, "words": words}, fh)
    try:
        shares = [clients // procs + (1 if i < clients % procs else 0) for i in range(procs)]
        firsts = [sum(shares[:i]) for i in range(procs)]
        workers = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.bench.bench_mixed",
                "--worker",
                url,
                "--inputs",
                fh.name,
                "--first",
                str(first),
                "--clients",
                str(share),
                "--start-at",
                str(start),
                "--until",
                str(until),
                stdout=subprocess.PIPE,
                cwd=ROOT,  # the workers import this checkout's benchmark, wherever it was started from
                env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])},
            )
            for first, share in zip(firsts, shares, strict=True)
            if share
        ]
        outs = [json.loads((await w.communicate())[0]) for w in workers]
    finally:
        os.unlink(fh.name)
    merged: dict[str, list[float]] = defaultdict(list)
    errors: Counter[str] = Counter()
    for out in outs:
        for op, samples in out["times"].items():
            merged[op].extend(samples)
        errors.update(out["errors"])
    return merged, errors


def worker(url: str, inputs: Path, first: int, count: int, start: float, until: float) -> None:
    import logging

    logging.disable(logging.WARNING)  # the SDK client warns once per call of a tool outside the lean list
    data = json.loads(inputs.read_text())
    times, errors = asyncio.run(agents_here(url, first, count, start, until, data["paths"], data["words"]))
    print(json.dumps({"times": times, "errors": errors}))


def histogram(text: str, metric: str = "vaultgate_tool_call_duration_seconds") -> dict[str, dict[float, float]]:
    """Cumulative bucket counts by tool from a Prometheus text exposition (summed over vaults)."""
    out: dict[str, dict[float, float]] = defaultdict(lambda: defaultdict(float))
    prefix = metric + "_bucket{"
    for line in text.splitlines():
        if not line.startswith(prefix):
            continue
        labels_text, _, value = line[len(prefix) :].rpartition("} ")
        labels = dict(part.split("=", 1) for part in labels_text.split(","))
        le = labels["le"].strip('"')
        out[labels["tool"].strip('"')][float("inf") if le == "+Inf" else float(le)] += float(value)
    return out


def histogram_quantile(q: float, buckets: dict[float, float]) -> float:
    """Prometheus' estimate: the bucket holding the q-th observation, linearly interpolated."""
    bounds = sorted(buckets)
    total = buckets[bounds[-1]] if bounds else 0.0
    if total <= 0:
        return float("nan")
    rank, lower, below = q * total, 0.0, 0.0
    for bound in bounds:
        count = buckets[bound]
        if count >= rank:
            if bound == float("inf"):
                return lower
            return lower + (bound - lower) * (rank - below) / max(count - below, 1e-12)
        lower, below = bound, count
    return lower


def server_latency(before: str, after: str, ops: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    """p50/p95 in ms per group of tools, from the histogram's growth between two scrapes."""
    old, new = histogram(before), histogram(after)
    report: dict[str, dict[str, float]] = {}
    for group, tools in ops.items():
        merged: dict[float, float] = defaultdict(float)
        for tool in tools:
            for bound, count in new.get(tool, {}).items():
                merged[bound] += count - old.get(tool, {}).get(bound, 0.0)
        n = max(merged.values(), default=0.0)
        report[group] = {
            "n": int(n),
            "p50_ms": round(1000 * histogram_quantile(0.50, merged), 2),
            "p95_ms": round(1000 * histogram_quantile(0.95, merged), 2),
        }
    return report


async def scrape(url: str) -> str:
    import httpx2

    async with httpx2.AsyncClient(timeout=60) as http:  # it waits its turn behind 32 busy clients
        response = await http.get(url.rsplit("/mcp", 1)[0] + "/metrics")
        return str(response.text)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def sample_rss(pid: int, stop: asyncio.Event, out: list[float]) -> None:
    while not stop.is_set():
        out.append(rss_mb(pid))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=1.0)


async def main(clients: int, seconds: float, notes: int, src: Path | None, embeddings: str, procs: int) -> None:
    source, meta = standard_vault(notes)
    env = {**BENCH_ENV, "VAULTGATE_EMBEDDINGS__PROVIDER": embeddings}
    if src is not None:
        env["PYTHONPATH"] = str(src)
        env["PYTHONSAFEPATH"] = "1"  # `python -m` would put the working directory (this checkout) first
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".vaultgate"))
        paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))[:2000]
        words = [q["q"].split()[0] for q in meta["queries"]] or ["note"]
        server = ServerProcess(vaultgate_argv(root), env=env)
        try:
            server.start()
            ready_s = await wait_ready(server.url)
            async with Client(server.url, mode="legacy", cache=None) as client:
                # the cold index's deferred trigram rebuild is background work: let it finish
                for _ in range(6000):
                    status = await client.call_tool("index_status", {})
                    if (status.structured_content or {}).get("health") == "healthy":
                        break
                    await asyncio.sleep(0.1)
            ready_s = round(time.perf_counter() - server.t_spawn, 2)
            # Agents connect (worker processes import the SDK first) before the measured window.
            start = time.time() + (15.0 if procs > 1 else 3.0)
            until = start + seconds
            if procs > 1:
                running = asyncio.create_task(agents_in_workers(server.url, clients, procs, start, until, paths, words))
            else:
                running = asyncio.create_task(agents_here(server.url, 0, clients, start, until, paths, words))
            await asyncio.sleep(max(0.0, start - time.time()))
            rss: list[float] = []
            stop = asyncio.Event()
            sampler = asyncio.create_task(sample_rss(server.pid, stop, rss))
            metrics0 = await scrape(server.url)
            cpu0 = cpu_seconds(server.pid)
            t0 = time.perf_counter()
            merged, errors = await running
            wall = time.perf_counter() - t0
            client_cpu_ms = errors.pop(CPU_KEY, 0)
            cpu = cpu_seconds(server.pid) - cpu0
            stop.set()
            await sampler
            metrics1 = await scrape(server.url)
        finally:
            server.stop()
    groups = {
        "write": ["create_note", "append_note", "patch_note"],
        "read": ["read_note", "list_notes"],
        **{op: [op] for op, _ in MIX},
    }
    half = rss[len(rss) // 2]
    writes = [s for op in ("create_note", "append_note", "patch_note") for s in merged[op]]
    reads = [s for op in ("read_note", "list_notes") for s in merged[op]]
    total = sum(len(v) for v in merged.values())
    report(
        "mixed",
        {
            "clients": clients,
            "client_processes": procs,
            "seconds": round(wall, 1),
            "notes": notes,
            "server_src": str(src) if src else "this checkout",
            "embeddings": embeddings,
            "spawn_to_healthy_index_s": ready_s,
            "calls_per_s": round(total / wall, 1),
            "server_cpu_ms_per_call": round(1000 * cpu / max(1, total), 2),
            "server_cpu_share": round(cpu / wall, 2),
            # the clients share the machine: what they cost bounds calls/s as much as the server
            "client_cpu_ms_per_call": round(client_cpu_ms / max(1, total), 2),
            "client_cpu_share": round(client_cpu_ms / 1000 / wall, 2),
            "load_average_1m": round(os.getloadavg()[0], 2),
            "write": summary_ms(writes),
            "read": summary_ms(reads),
            "by_op": {op: summary_ms(v) for op, v in sorted(merged.items())},
            "server": server_latency(metrics0, metrics1, groups),
            "errors": dict(errors),
            "rss_mb": {
                "start": rss[0],
                "end": rss[-1],
                "peak": max(rss),
                "growth": round(rss[-1] - rss[0], 1),
                "growth_second_half": round(rss[-1] - half, 1),
                # the first minute fills the readers' page caches and the memos; the rest grows
                # with the vault (the agents' creates)
                "growth_after_first_minute": round(rss[-1] - rss[min(60, len(rss) - 1)], 1),
            },
            "notes_created": len(merged["create_note"])
            - sum(n for key, n in errors.items() if key.startswith("create_note:")),
        },
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--src", type=Path, help="run the server from this source tree")
    parser.add_argument("--embeddings", default="none", help="embedding provider (default none: no embedding job)")
    parser.add_argument("--procs", type=int, default=1, help="client worker processes (1: clients in this process)")
    parser.add_argument("--worker", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--inputs", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--until", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.inputs, args.first, args.clients, args.start_at, args.until)
    else:
        asyncio.run(main(args.clients, args.seconds, args.notes, args.src, args.embeddings, args.procs))
