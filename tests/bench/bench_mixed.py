"""Many agents at once: N SDK clients over Streamable HTTP mixing reads, searches and writes on
one server, for a fixed time; also the soak (run it for minutes and watch memory).

    python -m tests.bench.bench_mixed --clients 32 --seconds 60 [--notes 10000] [--src DIR]

Per operation p50/p95/p99 at the client, total calls per second, errors by code, and the server's
RSS sampled every second (start, end, peak, growth). `--src DIR` runs the server from another
source tree (e.g. a checkout of the previous commit), so old and new can be compared in turns on
one machine. The clients run in this process: on a small machine they take CPU from the server,
as real agents on the same laptop would.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import shutil
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
    url: str, who: int, until: float, paths: list[str], words: list[str], seed: int
) -> tuple[dict[str, list[float]], Counter[str]]:
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
        while time.perf_counter() < until:
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


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def sample_rss(pid: int, stop: asyncio.Event, out: list[float]) -> None:
    while not stop.is_set():
        out.append(rss_mb(pid))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=1.0)


async def main(clients: int, seconds: float, notes: int, src: Path | None, embeddings: str) -> None:
    source, meta = standard_vault(notes)
    env = {**BENCH_ENV, "VAULTGATE_EMBEDDINGS__PROVIDER": embeddings}
    if src is not None:
        env["PYTHONPATH"] = str(src)
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
            rss: list[float] = []
            stop = asyncio.Event()
            sampler = asyncio.create_task(sample_rss(server.pid, stop, rss))
            cpu0 = cpu_seconds(server.pid)
            t0 = time.perf_counter()
            until = t0 + seconds
            done = await asyncio.gather(*(agent(server.url, i, until, paths, words, seed=i) for i in range(clients)))
            wall = time.perf_counter() - t0
            cpu = cpu_seconds(server.pid) - cpu0
            stop.set()
            await sampler
        finally:
            server.stop()
    merged: dict[str, list[float]] = defaultdict(list)
    errors: Counter[str] = Counter()
    for times, errs in done:
        for op, samples in times.items():
            merged[op].extend(samples)
        errors.update(errs)
    writes = [s for op in ("create_note", "append_note", "patch_note") for s in merged[op]]
    reads = [s for op in ("read_note", "list_notes") for s in merged[op]]
    total = sum(len(v) for v in merged.values())
    report(
        "mixed",
        {
            "clients": clients,
            "seconds": round(wall, 1),
            "notes": notes,
            "server_src": str(src) if src else "this checkout",
            "embeddings": embeddings,
            "spawn_to_healthy_index_s": ready_s,
            "calls_per_s": round(total / wall, 1),
            "server_cpu_ms_per_call": round(1000 * cpu / max(1, total), 2),
            "server_cpu_share": round(cpu / wall, 2),
            "write": summary_ms(writes),
            "read": summary_ms(reads),
            "by_op": {op: summary_ms(v) for op, v in sorted(merged.items())},
            "errors": dict(errors),
            "rss_mb": {"start": rss[0], "end": rss[-1], "peak": max(rss), "growth": round(rss[-1] - rss[0], 1)},
        },
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--src", type=Path, help="run the server from this source tree")
    parser.add_argument("--embeddings", default="none", help="embedding provider (default none: no embedding job)")
    args = parser.parse_args()
    asyncio.run(main(args.clients, args.seconds, args.notes, args.src, args.embeddings))
