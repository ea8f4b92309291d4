"""`read_note` over stdio at the SDK client, vaultgate beside the fastest peer, read by read.

    python -m tests.bench.bench_peer_reads [--rounds 5] [--reads 50] [--src DIR ...] [--peers DIR] [--peer NAME ...]

The read figures of `tests.bench.bench_peers` (`read`: right after the start, `read_steady`:
after a 3 s pause), without the rest of that benchmark (no cold index, search, write or memory
figures: the index of the standard vault must exist, e.g. from a `bench_peers` run with the same
`VAULTGATE_BENCH_DIR`). Each round spawns every server in turn (the order rotates) with the same
client and calls as `bench_peers.one_round`: `initialize`, `tools/list`, three warm-up reads,
`--reads` reads of typical notes, a 3 s pause, the same reads again. Every read is recorded with
its time since the spawn, so a slow stretch right after the start (the server still loading
beside the reads) shows as such: reported per server are the p50 of each phase and the median
latency of each read position of the first phase (`by_position_ms`) with its median time since
the spawn (`at_ms`), and the CPU this client process spent per read after the pause
(`client_cpu_steady_p50_ms`: parsing the answer, and validating its `structuredContent` against
the tool's output schema when the tool publishes one, which the SDK client does for every call).
`--src DIR` (repeatable) runs vaultgate from another source tree too
(`vaultgate@DIR`), alternated with this one. Each tree's `service` package is byte-compiled first,
as an install does (with `PYTHONDONTWRITEBYTECODE` set, a source tree would otherwise compile
every module at every start, inside the window measured). Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.bench.bench_peers import STEADY_PAUSE_S, Server, peers, typical_notes, vaultgate
from tests.bench.common import WORKDIR, report, standard_vault, summary_ms

ROOT = Path(__file__).resolve().parents[2]


async def one_round(server: Server, paths: list[str], out: dict[str, list[Any]]) -> None:
    """One start of `server`: (since spawn, latency) of each read right after it, then latencies after a pause."""
    params = StdioServerParameters(
        command=server.command, args=server.args, env={**os.environ, **server.env}, cwd=server.cwd
    )
    t0 = time.perf_counter()
    async with Client(params, mode="legacy") as client:
        await client.list_tools()
        for path in paths[:3]:
            await client.call_tool(*server.read(path))
        timeline = []
        for path in paths:
            t = time.perf_counter()
            result = await client.call_tool(*server.read(path))
            timeline.append((t - t0, time.perf_counter() - t))
            if result.is_error:
                raise RuntimeError(f"{server.name}: read of {path} failed: {result.content}")
        await asyncio.sleep(STEADY_PAUSE_S)
        steady, cpu = [], []
        for path in paths:
            t, c = time.perf_counter(), time.process_time()
            await client.call_tool(*server.read(path))
            steady.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
    out["timeline"].append(timeline)
    out["steady"].extend(steady)
    out["client_cpu"].extend(cpu)


def figures(out: dict[str, list[Any]]) -> dict[str, Any]:
    timelines = out["timeline"]
    columns = list(zip(*timelines, strict=True))
    return {
        "read": summary_ms([lat for line in timelines for _, lat in line]),
        "read_steady": summary_ms(out["steady"]),
        "client_cpu_steady_p50_ms": round(statistics.median(out["client_cpu"]) * 1000, 3),
        "round_p50_ms": [round(statistics.median(lat for _, lat in line) * 1000, 3) for line in timelines],
        "steady_round_p50_ms": [
            round(statistics.median(out["steady"][i : i + len(columns)]) * 1000, 3)
            for i in range(0, len(out["steady"]), len(columns))
        ],
        "by_position_ms": [round(statistics.median(lat for _, lat in col) * 1000, 3) for col in columns],
        "at_ms": [round(statistics.median(at for at, _ in col) * 1000) for col in columns],
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    vault, meta = standard_vault(args.notes)
    paths = typical_notes(meta, args.reads)
    for src in (ROOT, *args.src):
        compileall.compile_dir(src / "service", quiet=1)
    servers = [vaultgate(vault, ROOT)] + [vaultgate(vault, src, f"vaultgate@{src}") for src in args.src]
    servers += [s for s in peers(vault, args.peers) if s.name in args.peer]
    samples: dict[str, dict[str, list[Any]]] = {
        s.name: {"timeline": [], "steady": [], "client_cpu": []} for s in servers
    }
    loads = [os.getloadavg()[0]]
    for server in servers:  # a start not counted: the stdio answers stored, files in the page cache
        await one_round(server, paths[:5], {"timeline": [], "steady": [], "client_cpu": []})
    for r in range(args.rounds):
        shift = r % len(servers)
        for server in servers[shift:] + servers[:shift]:
            await one_round(server, paths, samples[server.name])
        loads.append(os.getloadavg()[0])
    return {
        "rounds": args.rounds,
        "reads_per_round": args.reads,
        "load_1min": [round(x, 2) for x in loads],
        "python": sys.version.split()[0],
        "servers": {name: figures(out) for name, out in samples.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reads", type=int, default=50)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--peers", type=Path, default=WORKDIR / "peers", help="folder of the npm install")
    parser.add_argument("--peer", action="append", default=[], help="a peer to run beside (default: mcp-obsidian)")
    parser.add_argument("--src", type=Path, action="append", default=[], help="also run vaultgate from this tree")
    args = parser.parse_args()
    args.peer = args.peer or ["mcp-obsidian"]
    report("bench_peer_reads", asyncio.run(run(args)))


if __name__ == "__main__":
    main()
