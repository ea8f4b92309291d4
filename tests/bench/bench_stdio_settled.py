"""The memory of a settled `vaultgate stdio` on the standard workload without an embedding model,
and what a read costs it, with (`--old DIR`) another source tree alternating start by start.

    python -m tests.bench.bench_stdio_settled [--old DIR] [--new DIR] [--starts 3] [--notes 10000]

Each start spawns `python -m service stdio VAULT` (`[embeddings] provider = "none"`, plain
JSON-RPC lines over a pipe, no SDK client) on the workload with a warm cache (each tree's index
built by one start that is not counted), sends `initialize` and `tools/list`, waits until the
server has used no CPU for 3 s (at most 180 s: its start-up work done), then sends 60
`read_note` of notes picked with a fixed seed and 20 `search_text` of the workload's queries,
one after the other. Recorded: the server's peak resident memory (`VmHWM`) and its resident
memory after the calls, the resident memory of its child processes, and the median time of a
read at this client (the first 10 reads left out). Reported: medians per tree, and new/old
ratios. Prints JSON.
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.bench.bench_peers import tree_rss_mb
from tests.bench.bench_stdio_start import INIT, ask
from tests.bench.common import BENCH_ENV, WORKDIR, report, standard_vault

ROOT = Path(__file__).resolve().parents[2]
READS, SKIPPED, SEARCHES = 60, 10, 20


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _status_mb(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key):
            return int(line.split()[1]) / 1024
    return float("nan")


def _settle(pid: int, limit_s: float = 180.0) -> float:
    """Seconds until the process used no CPU tick for 3 s in a row (-1: not within `limit_s`)."""
    t0 = time.perf_counter()
    last, quiet = _cpu_ticks(pid), 0
    while time.perf_counter() - t0 < limit_s:
        time.sleep(1.0)
        now = _cpu_ticks(pid)
        quiet, last = (quiet + 1 if now - last <= 2 else 0), now
        if quiet >= 3:
            return time.perf_counter() - t0
    return -1.0


def one_start(src: Path, vault: Path, home: Path, reads: list[str], queries: list[str]) -> dict[str, float]:
    env = {
        **os.environ,
        **BENCH_ENV,
        "PYTHONPATH": str(src),
        "PYTHONSAFEPATH": "1",
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_DATA_HOME": str(home / "data"),
        "VAULTGATE_EMBEDDINGS__PROVIDER": "none",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "service", "stdio", str(vault)],
        cwd=src,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        ask(proc, 1, "initialize", INIT)
        assert proc.stdin is not None
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        ask(proc, 2, "tools/list", {})
        settled = _settle(proc.pid)
        times: list[float] = []
        for n, path in enumerate(reads):
            t0 = time.perf_counter()
            answer = ask(proc, 10 + n, "tools/call", {"name": "read_note", "arguments": {"path": path}})
            times.append(time.perf_counter() - t0)
            if "result" not in answer or answer["result"].get("isError"):
                raise RuntimeError(f"read_note failed: {answer}")
        for n, query in enumerate(queries):
            answer = ask(proc, 1000 + n, "tools/call", {"name": "search_text", "arguments": {"query": query}})
            if "result" not in answer or answer["result"].get("isError"):
                raise RuntimeError(f"search_text failed: {answer}")
        return {
            "settled_s": round(settled, 1),
            "peak_rss_mb": round(_status_mb(proc.pid, "VmHWM:"), 1),
            "rss_mb": round(_status_mb(proc.pid, "VmRSS:"), 1),
            "children_rss_mb": round(tree_rss_mb(proc.pid), 1),
            "read_p50_ms": round(statistics.median(times[SKIPPED:]) * 1000, 3),
        }
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def main(old: Path | None, new: Path, starts: int, notes: int) -> None:
    vault, meta = standard_vault(notes)
    sides = {"new": new.resolve(), **({"old": old.resolve()} if old is not None else {})}
    names = sorted(str(p.relative_to(vault).with_suffix("")) for p in vault.rglob("*.md"))
    reads = random.Random(7).sample(names, READS)
    queries = [q["q"] for q in meta["queries"]][:SEARCHES]
    homes = {side: WORKDIR / f"stdio-settled-{side}-{notes}" for side in sides}
    for side, src in sides.items():  # each tree's own index, built once and not counted
        compileall.compile_dir(src / "service", quiet=1)  # as an install does (PYTHONDONTWRITEBYTECODE)
        shutil.rmtree(homes[side], ignore_errors=True)
        one_start(src, vault, homes[side], reads, queries)
    samples: dict[str, dict[str, list[float]]] = {}
    loads = [os.getloadavg()[0]]
    for r in range(starts):
        for side in list(sides) if r % 2 == 0 else list(reversed(sides)):
            for key, value in one_start(sides[side], vault, homes[side], reads, queries).items():
                samples.setdefault(side, {}).setdefault(key, []).append(value)
        loads.append(os.getloadavg()[0])
    result: dict[str, Any] = {"starts": starts, "notes": notes, "load_1min": [round(x, 2) for x in loads]}
    for side, figures in samples.items():
        result[side] = {key: statistics.median(values) for key, values in figures.items()}
        result[side]["raw"] = figures
    if old is not None:
        result["new_over_old"] = {
            key: round(value / result["old"][key], 3)
            for key, value in result["new"].items()
            if key != "raw" and result["old"][key]
        }
        result["old_src"] = str(old)
    result["new_src"] = str(new)
    report("stdio_settled", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="also run this source tree, alternating start by start")
    parser.add_argument("--new", type=Path, default=ROOT, help="the source tree measured as new (default: this one)")
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--notes", type=int, default=10_000)
    args = parser.parse_args()
    main(args.old, args.new, args.starts, args.notes)
