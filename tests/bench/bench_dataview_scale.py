"""Dataview over a whole large vault: a TASK query's memory, the wait it causes another client,
and a FLATTEN ... SORT query against its time budget — old and new servers alternated.

Run: `python -m tests.bench.bench_dataview_scale VAULT [--old TREE] [--new TREE] [--rounds 2]`, VAULT a
copy of the generated vault whose index the servers share (set XDG_CACHE_HOME / XDG_DATA_HOME
to folders of your own, or VAULTGATE_BENCH_DIR; a cold index is built by the first server), each
TREE a worktree of a commit to compare (its `service` package is run with this interpreter; the
new one defaults to this checkout). For each round and
each tree: a `vaultgate serve` subprocess without embeddings; the page image built (`LIST LIMIT
1`); then a second SDK client calls read_note every 50 ms while the first runs `TASK` (limit 50)
and, 5 s later, `TABLE x FLATTEN file.etags AS x SORT x DESC` (limit 50) under the default 10 s
budget. Reported per run: each call's seconds and outcome, the server's RSS before, after each
call and 10 s after the last, and the other client's read_note latency (max, p95) during each
call and in the 5 s after it. Prints one JSON object (tests/bench/common.py). Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from mcp import Client

from tests.bench.common import BENCH_ENV, ServerProcess, percentile, report, rss_mb, wait_ready

TASK = "TASK"
FLATTEN_SORT = "TABLE x FLATTEN file.etags AS x SORT x DESC"


class Prober:
    """read_note every 50 ms on its own client; latencies tagged with the phase they fell in."""

    def __init__(self, client: Client, path: str) -> None:
        self.client, self.path = client, path
        self.phase = "idle"
        self.samples: list[tuple[str, float]] = []
        self._stop = asyncio.Event()

    async def run(self) -> None:
        while not self._stop.is_set():
            phase = self.phase
            t0 = time.perf_counter()
            await self.client.call_tool("read_note", {"path": self.path})
            self.samples.append((phase, time.perf_counter() - t0))
            await asyncio.sleep(0.05)

    def stop(self) -> None:
        self._stop.set()

    def figures(self, phase: str) -> dict[str, float]:
        ms = [s * 1000 for p, s in self.samples if p == phase]
        if not ms:
            return {"n": 0}
        return {"n": len(ms), "max_ms": round(max(ms), 1), "p95_ms": round(percentile(ms, 95), 1)}


async def one(tree: str, vault: Path, note: str) -> dict[str, Any]:
    argv = [sys.executable, "-m", "service", "serve", str(vault), "--port", "0"]
    env = {**BENCH_ENV, "VAULTGATE_EMBEDDINGS__PROVIDER": "none", "PYTHONPATH": tree}
    cwd = os.getcwd()
    os.chdir(tree)  # `python -m service` imports the tree's package
    server = ServerProcess(argv, env=env)
    try:
        server.start(timeout=600)
    finally:
        os.chdir(cwd)
    out: dict[str, Any] = {"tree": tree}
    try:
        out["ready_s"] = round(await wait_ready(server.url, 1800), 1)
        async with (
            Client(server.url, mode="legacy", cache=None) as a,
            Client(server.url, mode="legacy", cache=None) as b,
        ):
            t0 = time.perf_counter()
            await a.call_tool("search_dql", {"query": "LIST LIMIT 1"})
            out["pages_built_s"] = round(time.perf_counter() - t0, 1)
            await asyncio.sleep(5)
            out["rss_before_mb"] = rss_mb(server.pid)
            prober = Prober(b, note)
            probing = asyncio.create_task(prober.run())
            await asyncio.sleep(3)
            for name, query in (("task", TASK), ("flatten_sort", FLATTEN_SORT)):
                prober.phase = name
                t0 = time.perf_counter()
                result = await a.call_tool("search_dql", {"query": query, "limit": 50})
                took = time.perf_counter() - t0
                content = result.structured_content or {}
                outcome = content.get("total") if not result.is_error else (content.get("error") or {}).get("code")
                prober.phase = name + "_after"
                out[name] = {"s": round(took, 2), "outcome": outcome, "rss_mb": rss_mb(server.pid)}
                await asyncio.sleep(5)
                out[name]["rss_5s_after_mb"] = rss_mb(server.pid)
                out[name]["other_client_during"] = prober.figures(name)
                out[name]["other_client_5s_after"] = prober.figures(name + "_after")
            prober.stop()
            await probing
            await asyncio.sleep(10)
            out["rss_settled_mb"] = rss_mb(server.pid)
            out["peak_rss_mb"] = rss_mb(server.pid, "VmHWM")
    except Exception as exc:  # noqa: BLE001 - a run that failed is reported, the others still run
        out["error"] = repr(exc)[:300]
        out["server_exit"] = server.proc.poll() if server.proc is not None else None
    finally:
        server.stop()
    return out


def _median(runs: list[dict[str, Any]], *keys: str) -> float:
    values: list[float] = []
    for run in runs:
        value: Any = run
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, (int, float)):
            values.append(float(value))
    return round(statistics.median(values), 1) if values else float("nan")


async def main(vault: Path, old: str | None, new: str, note: str, rounds: int) -> None:
    trees = [t for t in (old, new) if t]
    runs: list[dict[str, Any]] = []
    for _ in range(rounds):
        for tree in trees:
            runs.append(await one(tree, vault, note))
    load = os.getloadavg()
    summary: dict[str, Any] = {}
    for tree in trees:
        mine = [r for r in runs if r["tree"] == tree]
        summary["old" if tree == old else "new"] = {
            figure: _median(mine, *keys)
            for figure, keys in {
                "task_s": ("task", "s"),
                "task_rss_mb": ("task", "rss_mb"),
                "task_rss_5s_after_mb": ("task", "rss_5s_after_mb"),
                "task_other_max_ms": ("task", "other_client_during", "max_ms"),
                "task_after_other_max_ms": ("task", "other_client_5s_after", "max_ms"),
                "flatten_sort_s": ("flatten_sort", "s"),
                "flatten_sort_other_max_ms": ("flatten_sort", "other_client_during", "max_ms"),
                "flatten_sort_after_other_max_ms": ("flatten_sort", "other_client_5s_after", "max_ms"),
                "rss_before_mb": ("rss_before_mb",),
                "rss_settled_mb": ("rss_settled_mb",),
                "peak_rss_mb": ("peak_rss_mb",),
            }.items()
        }
    report(
        "dataview_scale", {"vault": str(vault), "rounds": rounds, "load_after": load, "medians": summary, "runs": runs}
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("vault", type=Path)
    parser.add_argument("--old", default=None)
    parser.add_argument("--new", default=None)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    new = args.new or str(Path(__file__).resolve().parents[2])
    note = next(str(p.relative_to(args.vault)) for p in args.vault.rglob("*.md") if ".obsidian" not in p.parts)
    asyncio.run(main(args.vault, args.old, new, note, args.rounds))
