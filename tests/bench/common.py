"""Shared benchmark helpers: the standard workload, server processes, percentiles, JSON results.

Benchmarks are scripts (`python -m tests.bench.bench_foundation`), never part of the test run.
Each prints one JSON object and, when a previous result exists under tests/bench/results/,
the relative change of every numeric figure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from tests.bench import workload

RESULTS = Path(__file__).resolve().parent / "results"
WORKDIR = Path(os.environ.get("VAULTGATE_BENCH_DIR", "/tmp/vaultgate-bench"))
# The index and state folders of every server a benchmark starts (in-process, or a subprocess
# inheriting the environment) go under WORKDIR, never into the user's cache and data folders.
os.environ["XDG_CACHE_HOME"] = str(WORKDIR / "xdg-cache")
os.environ["XDG_DATA_HOME"] = str(WORKDIR / "xdg-data")


def forget_index(vault: Path) -> None:
    """A cold start for `vault`: its index and records from an earlier run are deleted."""
    from service.settings import load_settings

    served = load_settings(vault)
    for folder in (served.cache_dir(), served.data_dir(), vault / ".vaultgate"):
        shutil.rmtree(folder, ignore_errors=True)


def standard_vault(n: int = 10_000, seed: int = 42) -> tuple[Path, dict[str, Any]]:
    """The standard workload (tests/bench/workload.py, generated once and reused): vault folder and
    its metadata. A folder left by an interrupted run (no metadata yet) is generated again."""
    out = WORKDIR / f"vault-{n}-{seed}"
    meta = WORKDIR / f"vault-{n}-{seed}.meta.json"
    if not meta.exists():
        WORKDIR.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(out, ignore_errors=True)
        workload.generate(out, n=n, seed=seed, meta=meta)
    return out, json.loads(meta.read_text())


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary_ms(samples: list[float]) -> dict[str, float]:
    ms = [s * 1000 for s in samples]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 3),
        "p95_ms": round(percentile(ms, 95), 3),
        "p99_ms": round(percentile(ms, 99), 3),
        "mean_ms": round(statistics.fmean(ms), 3) if ms else float("nan"),
    }


def round_medians(runs: dict[str, list[dict[str, dict[str, float]]]]) -> dict[str, dict[str, dict[str, float]]]:
    """Per server, per call, each figure's median over the rounds (`runs`: server -> one dict per
    round of call -> figure -> value)."""
    return {
        key: {
            name: {k: round(statistics.median(r[name][k] for r in results), 3) for k in figures}
            for name, figures in results[0].items()
        }
        for key, results in runs.items()
    }


def roots_args(doc: str, calls: int) -> tuple[list[str], int, int]:
    """The command line of a benchmark that serves code roots side by side: (roots, calls, rounds);
    no root: this checkout."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("roots", nargs="*", help="code roots to serve from (default: this checkout)")
    parser.add_argument("--calls", type=int, default=calls)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    return args.roots or [str(Path(__file__).resolve().parents[2])], args.calls, args.rounds


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """A process's resident set now (`VmRSS`) or at its highest so far (`field="VmHWM"`), in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(rf"{field}:\s+(\d+) kB", status)
    return round(int(match.group(1)) / 1024, 1) if match else float("nan")


class ServerProcess:
    """`vaultgate serve TARGET --port 0` (or any command printing 'MCP endpoint: URL') as a subprocess."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.argv = argv
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.t_spawn = 0.0

    def start(self, timeout: float = 60.0) -> str:
        self.t_spawn = time.perf_counter()
        self.proc = subprocess.Popen(
            self.argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=self.env
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"server exited early: {self.argv}")
            if "MCP endpoint:" in line:
                self.url = line.split("MCP endpoint:", 1)[1].strip()
                return self.url
        raise TimeoutError("server did not print its URL")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


async def wait_ready(url: str, limit_s: float = 600.0) -> float:
    """Poll /readyz until every vault's index is ready; returns the seconds waited."""
    import httpx2

    base = url.rsplit("/mcp", 1)[0]
    t0 = time.perf_counter()
    async with httpx2.AsyncClient() as http:
        while time.perf_counter() - t0 < limit_s:
            response = await http.get(f"{base}/readyz")
            if response.status_code == 200 and response.json().get("ready"):
                return time.perf_counter() - t0
            await asyncio.sleep(0.05)
    raise TimeoutError("index not ready")


@contextlib.asynccontextmanager
async def served_roots(roots: list[str], vault: Path) -> AsyncIterator[list[tuple[str, ServerProcess, str]]]:
    """`vaultgate serve VAULT` from each code root (embeddings off, the bench throttle), all up and
    ready at once: (root, server, url) each; stopped at the end."""
    servers: list[tuple[str, ServerProcess, str]] = []
    try:
        for root in roots:
            argv = [sys.executable, "-m", "service", "serve", str(vault), "--port", "0"]
            # PYTHONSAFEPATH: `-m` would put the working folder (maybe another checkout) before PYTHONPATH
            env = {**BENCH_ENV, "PYTHONPATH": root, "PYTHONSAFEPATH": "1", "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
            server = ServerProcess(argv, env=env)
            servers.append((root, server, server.start(timeout=600)))
        for _, _, url in servers:
            await wait_ready(url)
        yield servers
    finally:
        for _, server, _ in servers:
            server.stop()


# The throttle layer stays in the chain (its cost is part of what is measured) but with limits
# a benchmark cannot reach: thousands of calls a second from one caller are the point here.
BENCH_ENV = {
    f"VAULTGATE_THROTTLE__CLASSES__{cls}__{key}": "1000000000"
    for cls in ("READ", "WRITE", "ADMIN")
    for key in ("RATE_PER_MINUTE", "BURST")
}


def thread_cpu_ns(pid: int) -> int:
    """Nanoseconds on a CPU summed over the process's live threads (Linux
    /proc/PID/task/*/schedstat): fine-grained enough to charge a single call, unlike the
    clock-tick counters of /proc/PID/stat."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, IndexError, ValueError):
            continue  # the thread ended meanwhile
    return total


def vaultgate_argv(target: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "service", "serve", str(target), "--port", "0", *extra]


def report(name: str, result: dict[str, Any]) -> None:
    """Print the result as JSON with deltas against the previous run, then store it."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    previous = json.loads(path.read_text()) if path.exists() else None
    out = {"benchmark": name, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **result}
    if previous is not None:
        out["change_vs_previous"] = _deltas(previous, result)
    print(json.dumps(out, indent=2))
    path.write_text(json.dumps(out, indent=2))


def _deltas(old: Any, new: Any, prefix: str = "") -> dict[str, str]:
    changes: dict[str, str] = {}
    if isinstance(old, dict) and isinstance(new, dict):
        for key, value in new.items():
            if key in old and key != "change_vs_previous":
                changes.update(_deltas(old[key], value, f"{prefix}{key}."))
    elif isinstance(old, (int, float)) and isinstance(new, (int, float)) and not isinstance(new, bool) and old:
        changes[prefix.rstrip(".")] = f"{(new - old) / old * 100:+.1f}%"
    return changes
