"""Soak: one SDK client mixing reads, searches, writes and lists at a modest fixed rate for a long
time (an hour by default), watching the server's memory.

    python -m tests.bench.bench_soak --minutes 60 --rate 15 [--transport stdio|http] [--src DIR]
                                     [--sample-s 10] [--warmup-min 5] [--out FILE]

The server serves a copy of the standard workload (tests/bench/workload.py) and is started from
this checkout or from `--src DIR`. Calls are paced (call i starts at i / rate seconds, or at once
when behind), so the machine stays usable and the server sees the same load in every run. Writes
stay within a fixed set of notes (overwrites of a pool, appends to a log reset every 200 entries,
section patches; an overwrite passes the etag its note's last write answered, so none waits for
a human), so the vault does not grow with the run's length: any growth in memory is the
server's, not the data's.

Every `--sample-s` seconds the server's resident memory (process and descendants, e.g. parse
workers) is recorded, and the process's anonymous part (its heap; the rest is mapped files). The
result has start/peak/end RSS, the least-squares slope in MB per hour over the samples after
`--warmup-min` (of the RSS and of the anonymous part), calls and errors per operation, client latency p50/p95 and
the server's CPU per call. With `--out`, the JSON is rewritten after every sample (`"running":
true` until the end), so a long run can be watched and survives an interruption.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.bench.bench_peers import tree_rss_mb
from tests.bench.common import (
    BENCH_ENV,
    ServerProcess,
    forget_index,
    rss_mb,
    standard_vault,
    summary_ms,
    thread_cpu_ns,
    vaultgate_argv,
    wait_ready,
)

# (operation, weight): mostly reads, as an agent does.
MIX = (
    ("read_note", 40),
    ("search_text", 20),
    ("list_notes", 10),
    ("write_note", 10),
    ("append_note", 12),
    ("patch_note", 8),
)
POOL = 50  # notes the run overwrites in turn
LOG = "Soak/log.md"
LOG_HEAD = "# Soak log\n\n## Entries\n"


def anon_mb(pid: int) -> float:
    """The process's anonymous resident memory (heap, not mapped files), MB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def slope_mb_per_hour(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB) pairs, in MB per hour."""
    if len(samples) < 2:
        return float("nan")
    n = len(samples)
    mx = sum(t for t, _ in samples) / n
    my = sum(m for _, m in samples) / n
    var = sum((t - mx) ** 2 for t, _ in samples)
    if var == 0:
        return float("nan")
    return sum((t - mx) * (m - my) for t, m in samples) / var * 3600


class Soak:
    """The running tallies of one soak, and their JSON form."""

    def __init__(self, args: argparse.Namespace, pid: int) -> None:
        self.args = args
        self.pid = pid
        self.times: dict[str, list[float]] = defaultdict(list)
        self.errors: Counter[str] = Counter()
        # (seconds, process MB, with descendants MB, process anonymous MB): anonymous memory is
        # the heap; the rest is mapped files (libraries, SQLite's memory-mapped pages)
        self.rss: list[tuple[float, float, float, float]] = []
        self.t0 = time.perf_counter()
        self.cpu0 = thread_cpu_ns(pid)
        self.calls = 0
        self.final: tuple[float, float] | None = None  # (seconds, server CPU s), once the run ended

    def finish(self) -> None:
        """Freezes the figures that need the live server."""
        self.sample()
        self.final = (time.perf_counter() - self.t0, (thread_cpu_ns(self.pid) - self.cpu0) / 1e9)

    def sample(self) -> None:
        own = rss_mb(self.pid)
        at = round(time.perf_counter() - self.t0, 1)
        self.rss.append((at, own, round(own + tree_rss_mb(self.pid), 1), anon_mb(self.pid)))

    def result(self, running: bool) -> dict[str, Any]:
        elapsed, cpu_s = self.final or (time.perf_counter() - self.t0, (thread_cpu_ns(self.pid) - self.cpu0) / 1e9)
        warm = [(t, tree) for t, _, tree, _ in self.rss if t >= self.args.warmup_min * 60]
        warm_anon = [(t, anon) for t, _, _, anon in self.rss if t >= self.args.warmup_min * 60]
        trees = [tree for _, _, tree, _ in self.rss]
        return {
            "benchmark": "soak",
            "running": running,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "transport": self.args.transport,
            "server_src": str(self.args.src) if self.args.src else "this checkout",
            "embeddings": self.args.embeddings,
            "rate_target_per_s": self.args.rate,
            "seconds": round(elapsed, 1),
            "calls": self.calls,
            "calls_per_s": round(self.calls / max(elapsed, 1e-9), 2),
            "server_cpu_ms_per_call": round(1000 * cpu_s / max(1, self.calls), 3),
            "errors": dict(self.errors),
            "error_count": sum(self.errors.values()),
            "rss_mb": {
                "start": trees[0] if trees else None,
                "peak": max(trees) if trees else None,
                "end": trees[-1] if trees else None,
                "after_warmup_start": warm[0][1] if warm else None,
                "slope_mb_per_hour_after_warmup": round(slope_mb_per_hour(warm), 2) if len(warm) > 1 else None,
                "anon_slope_mb_per_hour_after_warmup": round(slope_mb_per_hour(warm_anon), 2)
                if len(warm_anon) > 1
                else None,
                "warmup_min": self.args.warmup_min,
                "samples": [list(s) for s in self.rss],  # (s, server, server + descendants, server anon) MB
            },
            "by_op": {
                op: {**summary_ms(v), "errors": sum(n for k, n in self.errors.items() if k.startswith(op + ":"))}
                for op, v in sorted(self.times.items())
            },
        }

    def write(self, running: bool) -> None:
        if self.args.out:
            tmp = self.args.out.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.result(running), indent=2))
            tmp.replace(self.args.out)


def next_call(
    rng: random.Random, ops: list[str], paths: list[str], words: list[str], state: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The next call of the mix. Overwrites pass the etag the last write of that note answered
    (as an agent that read the note does), so they need no confirmation."""
    op = rng.choice(ops)
    etags: dict[str, str] = state["etags"]
    if op == "read_note":
        return op, {"path": rng.choice(paths)}
    if op == "search_text":
        return op, {"query": " ".join(rng.sample(words, min(2, len(words)))), "limit": 10}
    if op == "list_notes":
        folder = "Soak" if rng.random() < 0.5 else rng.choice(paths).rpartition("/")[0]
        return op, {"folder": folder, "limit": 20} if folder else {"limit": 20}
    if op == "write_note":
        state["written"] += 1
        path = f"Soak/pool-{state['written'] % POOL}.md"
        body = " ".join(rng.sample(words, min(12, len(words))))
        return op, {"path": path, "content": f"# Pool\n\n{body}\n", "mode": "overwrite", **_etag(etags, path)}
    if op == "append_note":
        state["appended"] += 1
        if state["appended"] % 200 == 0:
            return "write_note", {"path": LOG, "content": LOG_HEAD, "mode": "overwrite", **_etag(etags, LOG)}
        return op, {"path": LOG, "content": f"- entry {state['appended']} {rng.random():.6f}\n"}
    return op, {"path": LOG, "heading": ["Soak log", "Entries"], "position": "append", "content": "- patched\n"}


def _etag(etags: dict[str, str], path: str) -> dict[str, str]:
    return {"expected_etag": etags[path]} if path in etags else {}


async def drive(client: Client, soak: Soak, paths: list[str], words: list[str]) -> None:
    args = soak.args
    rng = random.Random(args.seed)
    ops = [op for op, weight in MIX for _ in range(weight)]
    state: dict[str, Any] = {"written": 0, "appended": 0, "etags": {}}
    first = await client.call_tool("write_note", {"path": LOG, "content": LOG_HEAD, "mode": "overwrite"})
    state["etags"][LOG] = (first.structured_content or {}).get("etag")
    start = time.perf_counter()
    until = start + args.minutes * 60
    next_sample = start
    i = 0
    while True:
        now = time.perf_counter()
        if now >= next_sample:
            soak.sample()
            soak.write(running=True)
            next_sample += args.sample_s
        if now >= until:
            break
        due = start + i / args.rate
        if due > now:
            await asyncio.sleep(min(due, next_sample) - now)
            continue
        i += 1
        op, call_args = next_call(rng, ops, paths, words, state)
        t = time.perf_counter()
        try:
            result = await client.call_tool(op, call_args)
        except Exception as exc:  # a transport failure counts as an error, the soak goes on
            soak.errors[f"{op}:{type(exc).__name__}"] += 1
            continue
        soak.times[op].append(time.perf_counter() - t)
        soak.calls += 1
        answer = result.structured_content or {}
        if not result.is_error and op in ("write_note", "append_note", "patch_note") and "etag" in answer:
            state["etags"][call_args["path"]] = answer["etag"]
        if result.is_error:
            code = (result.structured_content or {}).get("error", {}).get("code", "?")
            soak.errors[f"{op}:{code}"] += 1
    soak.finish()


async def wait_healthy(client: Client) -> None:
    for _ in range(6000):
        status = (await client.call_tool("index_status", {})).structured_content or {}
        if status.get("health") == "healthy" or (status.get("ready") and status.get("health") is None):
            return
        await asyncio.sleep(0.1)


def child_pid() -> int:
    me = os.getpid()
    kids = [
        int(c)
        for tid in os.listdir(f"/proc/{me}/task")
        for c in Path(f"/proc/{me}/task/{tid}/children").read_text().split()
    ]
    if len(kids) != 1:
        raise RuntimeError(f"expected one server process, found {kids}")
    return kids[0]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    source, meta = (args.vault, {}) if args.vault else standard_vault(args.notes)
    env = {**BENCH_ENV, "VAULTGATE_EMBEDDINGS__PROVIDER": args.embeddings, "VAULTGATE_LOG__LEVEL": "warning"}
    if args.src is not None:
        env["PYTHONPATH"] = str(args.src)
        env["PYTHONSAFEPATH"] = "1"  # `python -m` would put the working directory (this checkout) first
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".vaultgate"))
        paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
        words = [q["q"].split()[0] for q in meta.get("queries", [])] or ["note", "project", "meeting", "idea"]
        try:
            soak = await _serve_and_drive(args, root, env, paths, words)
        finally:
            forget_index(root)  # the copy's index and records go with it
    soak.write(running=False)
    return soak.result(running=False)


async def _serve_and_drive(
    args: argparse.Namespace, root: Path, env: dict[str, str], paths: list[str], words: list[str]
) -> Soak:
    if args.transport == "http":
        server = ServerProcess(vaultgate_argv(root), env=env)
        try:
            server.start()
            await wait_ready(server.url)
            async with Client(server.url, mode="legacy", cache=None) as client:
                await wait_healthy(client)
                soak = Soak(args, server.pid)
                await drive(client, soak, paths, words)
        finally:
            server.stop()
    else:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "service", "stdio", str(root)],
            env={**os.environ, **env},
            cwd=str(args.src) if args.src else None,
        )
        async with Client(params, mode="legacy") as client:
            await wait_healthy(client)
            soak = Soak(args, child_pid())
            await drive(client, soak, paths, words)
    return soak


def main() -> None:
    import logging

    logging.disable(logging.WARNING)  # the SDK client warns once per call of a tool outside the lean list
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=15.0, help="calls per second")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--vault", type=Path, help="serve a copy of this vault instead of the workload")
    parser.add_argument("--src", type=Path, help="run the server from this source tree")
    parser.add_argument("--embeddings", default="none", help="embedding provider (default none)")
    parser.add_argument("--sample-s", type=float, default=10.0, help="seconds between RSS samples")
    parser.add_argument("--warmup-min", type=float, default=5.0, help="minutes left out of the slope")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="also write the JSON here (rewritten after every sample)")
    result = asyncio.run(run(parser.parse_args()))
    print(
        json.dumps(
            {k: v for k, v in result.items() if k != "rss_mb"}
            | {"rss_mb": {k: v for k, v in result["rss_mb"].items() if k != "samples"}},
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
