"""What a settled stdio server does when nobody calls it, and which of its threads a read wakes.

    python -m tests.bench.bench_idle_wakeups [--rounds 2] [--idle-s 10] [--reads 50] [--src DIR ...] [--http]

vaultgate serves the standard workload over stdio (`vaultgate stdio`, as `bench_peers` starts
it: embeddings off); the SDK client lists the tools, reads `--reads` typical notes, waits
`--settle-s` for the start-up work to end, then counts for `--idle-s` seconds the context
switches of every thread of the server (`/proc/PID/task/*/status`: voluntary and involuntary)
and their CPU (`schedstat`), and then reads the same notes again and counts the wake-ups of the
threads other than the event loop's during those reads. Linux only (it reads `/proc`).
`--src DIR` (repeatable) runs vaultgate from another source tree too, alternated with this one
round by round. `--http`: `vaultgate serve` on a free port instead, its idle window only (no
reads). Prints JSON: per server, per round `idle_wakeups_per_s`, `idle_cpu_ms_per_s`,
`other_thread_wakeups_per_read` (the event loop's own are the calls themselves) and the names of
the threads that woke. Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.bench.bench_peers import typical_notes, vaultgate
from tests.bench.common import report, standard_vault

ROOT = Path(__file__).resolve().parents[2]


def _children() -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    if f.read().rsplit(")", 1)[1].split()[1] == str(os.getpid()):
                        found.append(int(entry))
            except (OSError, IndexError):
                continue
    return found


def _threads(pid: int) -> dict[str, tuple[str, int, int]]:
    """tid -> (name, context switches, CPU ns) of every thread of `pid`."""
    out: dict[str, tuple[str, int, int]] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        base = f"/proc/{pid}/task/{tid}"
        try:
            with open(f"{base}/status", encoding="utf-8") as f:
                switches = sum(int(line.split()[1]) for line in f if "ctxt_switches" in line)
            with open(f"{base}/schedstat", encoding="ascii") as f:
                cpu = int(f.read().split()[0])
            with open(f"{base}/comm", encoding="utf-8") as f:
                name = f.read().strip()
        except (OSError, ValueError):
            continue  # ended meanwhile
        out[tid] = (name, switches, cpu)
    return out


def _delta(
    before: dict[str, tuple[str, int, int]], after: dict[str, tuple[str, int, int]], skip: str = ""
) -> tuple[int, int, Counter[str]]:
    switches = cpu = 0
    names: Counter[str] = Counter()
    for tid, (name, n, ns) in after.items():
        if tid == skip:
            continue
        _, n0, ns0 = before.get(tid, (name, 0, 0))
        if n > n0:
            switches += n - n0
            cpu += ns - ns0
            names[name] += n - n0
    return switches, cpu, names


async def one_round(src: Path, vault: Path, paths: list[str], args: argparse.Namespace) -> dict[str, Any]:
    server = vaultgate(vault, src)
    params = StdioServerParameters(
        command=server.command, args=server.args, env={**os.environ, **server.env}, cwd=server.cwd
    )
    async with Client(params, mode="legacy") as client:
        await client.list_tools()
        (pid,) = _children()
        for path in paths:
            await client.call_tool(*server.read(path))
        await asyncio.sleep(args.settle_s)
        t0 = _threads(pid)
        await asyncio.sleep(args.idle_s)
        idle, idle_cpu, idle_names = _delta(t0, _threads(pid))
        t1 = _threads(pid)
        for path in paths:
            await client.call_tool(*server.read(path))
        woke, _, woke_names = _delta(t1, _threads(pid), skip=str(pid))
    return {
        "idle_wakeups_per_s": round(idle / args.idle_s, 2),
        "idle_cpu_ms_per_s": round(idle_cpu / 1e6 / args.idle_s, 3),
        "idle_threads": dict(idle_names),
        "other_thread_wakeups_per_read": round(woke / len(paths), 2),
        "woken_by_reads": dict(woke_names),
    }


async def http_round(src: Path, vault: Path, args: argparse.Namespace) -> dict[str, Any]:
    """`vaultgate serve` started, settled, and watched idle (no request at all)."""
    server = vaultgate(vault, src)
    proc = await asyncio.create_subprocess_exec(
        server.command,
        "-m",
        "service",
        "serve",
        str(vault),
        "--port",
        "0",
        env={**os.environ, **server.env},
        cwd=server.cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None
        while b"MCP endpoint" not in await asyncio.wait_for(proc.stdout.readline(), 120):
            pass
        await asyncio.sleep(args.settle_s)
        t0 = _threads(proc.pid)
        await asyncio.sleep(args.idle_s)
        idle, idle_cpu, idle_names = _delta(t0, _threads(proc.pid))
    finally:
        proc.terminate()
        await proc.wait()
    return {
        "idle_wakeups_per_s": round(idle / args.idle_s, 2),
        "idle_cpu_ms_per_s": round(idle_cpu / 1e6 / args.idle_s, 3),
        "idle_threads": dict(idle_names),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    vault, meta = standard_vault(args.notes)
    paths = typical_notes(meta, args.reads)
    trees = [ROOT, *args.src]
    for src in trees:
        compileall.compile_dir(src / "service", quiet=1)
    out: dict[str, list[dict[str, Any]]] = {str(src): [] for src in trees}
    for r in range(args.rounds):
        for src in trees if r % 2 == 0 else trees[::-1]:
            measured = await (http_round(src, vault, args) if args.http else one_round(src, vault, paths, args))
            out[str(src)].append(measured)
    return {
        "front": "http" if args.http else "stdio",
        "notes": args.notes,
        "reads": args.reads,
        "idle_s": args.idle_s,
        "load_1min": os.getloadavg()[0],
        "servers": out,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--idle-s", type=float, default=10.0)
    parser.add_argument("--settle-s", type=float, default=20.0)
    parser.add_argument("--reads", type=int, default=50)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--src", type=Path, action="append", default=[], help="also run vaultgate from this tree")
    parser.add_argument("--http", action="store_true", help="vaultgate serve, idle only")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        raise SystemExit("bench_idle_wakeups reads /proc: Linux only")
    report("bench_idle_wakeups", asyncio.run(run(args)))


if __name__ == "__main__":
    main()
