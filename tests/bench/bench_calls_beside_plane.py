"""Calls answered while a consolidation run works: `read_note` over stdio before, during and after.

    python -m tests.bench.bench_calls_beside_plane [--rounds 3] [--notes 10000] [--src DIR ...]

The consolidation plane runs in the background of a serving process (every `[plane]
interval_minutes`, or sooner after `after_changes` changed notes), and its jobs (the vault
audit's unlinked mentions and broken links, the topic maps' link graph) are whole-vault work in
Python: the calls that agents make meanwhile must not pay for it. Each round spawns the server
(stdio, the SDK client, as `bench_peers` does; the index of the standard vault must exist, e.g.
from a `bench_peers` run with the same `VAULTGATE_BENCH_DIR`), reads typical notes in bursts
(`--burst` reads back to back, then `--gap-s` seconds of nothing, as an agent between two
steps), first with no run (`idle`), then right after `run_consolidation {"wait": false}` until
`plane_status` shows the run ended (`during`), then again (`after`). Reported per tree: each
phase's latency summary (p50, p95, p99 and the largest) over all rounds, the run's length and
the ratio of the `during` p50 and p95 to the `idle` ones, the server's resident memory
(`/proc/PID/status` VmRSS, sampled every 0.1 s: its most before the run, its most during it, and
at the end of `after`, and with `--linger-s S` again after S seconds with no call: past the heap
trimmer's minute) and each job's seconds as the run reported them (`jobs_s`). `--src DIR` (repeatable) runs the
server from another source tree too, alternated with this one round by round. A run records
its findings in the bench folder's state (as a run by the schedule would). Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import json
import os
import re
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.bench.bench_peers import Server, typical_notes, vaultgate
from tests.bench.common import WORKDIR, report, standard_vault, summary_ms

ROOT = Path(__file__).resolve().parents[2]
RUN_LIMIT_S = 900.0  # a run that has not ended by then fails the round


async def burst(client: Client, server: Server, paths: list[str], out: list[float]) -> None:
    for path in paths:
        t = time.perf_counter()
        result = await client.call_tool(*server.read(path))
        out.append(time.perf_counter() - t)
        if result.is_error:
            raise RuntimeError(f"{server.name}: read of {path} failed: {result.content}")


def rss_mb(pid: int) -> float:
    match = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return round(int(match.group(1)) / 1024, 1) if match else 0.0


def server_pid(before: set[int]) -> int:
    """The server this process spawned since `before` (its children then)."""
    return max(children() - before)


def children() -> set[int]:
    me = str(os.getpid())
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError):
            if stat.read_text().rsplit(")", 1)[1].split()[1] == me:
                found.add(int(stat.parent.name))
    return found


class Rss:
    """The server's resident memory, sampled every 0.1 s into the phase it is in."""

    def __init__(self, pid: int) -> None:
        self.pid, self.phase, self.peak = pid, "idle", {"idle": 0.0, "during": 0.0, "after": 0.0}
        self.last = 0.0

    async def sample(self) -> None:
        while True:
            with contextlib.suppress(OSError):
                self.last = rss_mb(self.pid)
                self.peak[self.phase] = max(self.peak[self.phase], self.last)
            await asyncio.sleep(0.1)


async def ready(client: Client) -> bool:
    status = await client.call_tool("index_status", {})
    return bool(status.structured_content and status.structured_content.get("ready"))


async def running(client: Client) -> bool:
    status = await client.call_tool("plane_status", {})
    if status.is_error or status.structured_content is None:
        raise RuntimeError(f"plane_status failed: {status.content}")
    return status.structured_content.get("running") is not None


def job_seconds(vault: Path) -> dict[str, Any]:
    """Each job's seconds (or why it did not run) as the last run recorded them (the bench folder's
    state database of `vault`)."""
    for db in (WORKDIR / "xdg-data" / "vaultgate").glob(f"{vault.name}-*/state.db"):
        with contextlib.closing(sqlite3.connect(db)) as conn:
            row = conn.execute("SELECT summary FROM plane_state WHERE vault_id = 'main'").fetchone()
        jobs = json.loads(row[0]).get("jobs", []) if row else []
        return {j["job"]: j["seconds"] if j["status"] == "ran" else j["status"] for j in jobs}
    return {}


async def one_round(
    server: Server, vault: Path, paths: list[str], args: argparse.Namespace, out: dict[str, Any]
) -> None:
    params = StdioServerParameters(
        command=server.command, args=server.args, env={**os.environ, **server.env}, cwd=server.cwd
    )
    before = children()
    async with Client(params, mode="legacy") as client:
        await client.list_tools()
        rss = Rss(server_pid(before))
        sampler = asyncio.create_task(rss.sample())
        await burst(client, server, paths[:3], [])
        t0 = time.perf_counter()
        while not await ready(client):  # a run before would skip the jobs that need the index (100k: ~10 s)
            if time.perf_counter() - t0 > RUN_LIMIT_S:
                raise RuntimeError(f"{server.name}: the index was not ready within {RUN_LIMIT_S} s")
            await asyncio.sleep(0.5)
        await asyncio.sleep(args.settle_s)  # the start's own work (warm-ups, the index check) done
        for _ in range(args.bursts):
            await burst(client, server, paths, out["idle"])
            await asyncio.sleep(args.gap_s)
        started = await client.call_tool("run_consolidation", {"wait": False})
        if started.is_error:
            raise RuntimeError(f"run_consolidation failed: {started.content}")
        t0 = time.perf_counter()
        rss.phase = "during"
        while await running(client):
            if time.perf_counter() - t0 > RUN_LIMIT_S:
                raise RuntimeError(f"{server.name}: the run did not end within {RUN_LIMIT_S} s")
            await burst(client, server, paths, out["during"])
            await asyncio.sleep(args.gap_s)
        out["run_s"].append(round(time.perf_counter() - t0, 2))
        rss.phase = "after"
        for _ in range(args.bursts):
            await burst(client, server, paths, out["after"])
            await asyncio.sleep(args.gap_s)
        after_end = rss.last
        if args.linger_s:  # no calls: past the heap trimmer's minute, what the process still holds
            await asyncio.sleep(args.linger_s)
        sampler.cancel()
        rss_out = {"idle_max": rss.peak["idle"], "during_max": rss.peak["during"], "after_end": after_end}
        out["rss_mb"].append({**rss_out, "after_linger": rss.last} if args.linger_s else rss_out)
        out["jobs"].append(job_seconds(vault))


def figures(out: dict[str, Any]) -> dict[str, Any]:
    phases = {}
    for phase in ("idle", "during", "after"):
        s = summary_ms(out[phase])
        s["max_ms"] = round(max(out[phase], default=0.0) * 1000, 3)
        phases[phase] = s
    idle, during = phases["idle"], phases["during"]
    return {
        **phases,
        "run_s": out["run_s"],
        "rss_mb": out["rss_mb"],
        "jobs": out["jobs"],
        "during_over_idle_p50": round(during["p50_ms"] / idle["p50_ms"], 2) if idle["p50_ms"] else None,
        "during_over_idle_p95": round(during["p95_ms"] / idle["p95_ms"], 2) if idle["p95_ms"] else None,
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    vault, meta = standard_vault(args.notes)
    paths = typical_notes(meta, args.burst)
    for src in (ROOT, *args.src):
        compileall.compile_dir(src / "service", quiet=1)
    servers = [vaultgate(vault, ROOT)] + [vaultgate(vault, src, f"vaultgate@{src}") for src in args.src]
    keys = ("idle", "during", "after", "run_s", "rss_mb", "jobs")
    samples: dict[str, dict[str, Any]] = {s.name: {k: [] for k in keys} for s in servers}
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        shift = r % len(servers)
        for server in servers[shift:] + servers[:shift]:
            await one_round(server, vault, paths, args, samples[server.name])
            loads.append(os.getloadavg()[0])
    return {
        "notes": args.notes,
        "rounds": args.rounds,
        "burst": args.burst,
        "gap_s": args.gap_s,
        "load_1min": [round(x, 2) for x in loads],
        "python": sys.version.split()[0],
        "servers": {name: figures(out) for name, out in samples.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--burst", type=int, default=20, help="reads back to back")
    parser.add_argument("--gap-s", type=float, default=0.2, help="seconds between two bursts")
    parser.add_argument("--bursts", type=int, default=10, help="bursts before and after the run")
    parser.add_argument("--linger-s", type=float, default=0.0, help="idle seconds after, then RSS again")
    parser.add_argument("--settle-s", type=float, default=3.0, help="seconds after the start before the first")
    parser.add_argument("--src", type=Path, action="append", default=[], help="also run the server from this tree")
    report("bench_calls_beside_plane", asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
