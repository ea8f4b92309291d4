"""What one look of the polling watcher costs (`service/indexer/watch_poll.py`), and how long an
edit made by another program takes to be found while polling.

    python -m tests.bench.bench_poll [--notes 10000] [--looks 5] [--edits 5] [--poll-s 2]
        [--src DIR ...] [--rounds 2]

Starts the app in this process on the standard workload's vault with `[index] watch_mode =
"poll"` (the index built first when missing), waits until it is ready and settled, then times
one look and then `--looks` more (`reconcile.drift` as the watcher calls it: nothing changed;
the first after a start compares every file with the index, later ones only what the view kept
between looks says may differ): wall time, the process's CPU time and the look's own (its
threads', what the pause follows), the pause polling takes after such a look (at least 20 times
the look's CPU time), and the process's RSS before and after the looks. Then `--edits` times a
new note is written as another program would and `search_text` asked every 20 ms until it finds
it: file written -> found, about half of the pause plus a look (up to two pauses when a look has
passed the folder already).

`--src DIR` (repeatable) runs the same measure with vaultgate from another source tree too (a
worktree of an older commit, compiled here with `compileall`), each run in a child process,
alternated with this tree over `--rounds` rounds (A B, then B A), and reports each tree's runs
and the medians. The trees share the vault and its index. Prints one JSON object (see
tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.bench.common import BENCH_ENV, report, rss_mb, standard_vault, summary_ms

SETTLE_LIMIT_S = 120
ROOT = Path(__file__).resolve().parents[2]


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    os.environ.update(BENCH_ENV)
    from service.indexer import watch_poll
    from tests.conftest import started

    vault, _ = standard_vault(args.notes)
    index = {"watch_mode": "poll", "watch_poll_s": args.poll_s}
    async with started(vault, index=index) as vg:
        await vg.indexed(3600)
        for _ in range(SETTLE_LIMIT_S):
            cpu0 = time.process_time()
            await asyncio.sleep(1)
            if time.process_time() - cpu0 < 0.02:
                break
        watcher = vg.indexer()._watcher
        assert watcher is not None and watcher.drift is not None
        rss_before = rss_mb(os.getpid())
        walls: list[float] = []
        cpus: list[float] = []
        owns: list[float] = []
        for _ in range(args.looks + 1):
            cpu0, t0 = time.process_time(), time.perf_counter()
            differ, own = await watcher.drift()
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - cpu0)
            owns.append(own)
            assert differ == [], differ[:5]
        rss_after = rss_mb(os.getpid())
        found: list[float] = []
        for i in range(args.edits):
            word = f"polledword{i}x{os.getpid()}"
            path = vault / f"bench-poll-{i}.md"
            t0 = time.perf_counter()
            path.write_text(f"# {word}\n\n{word}\n", encoding="utf-8")
            try:
                while not (await vg.ok("search_text", query=word))["items"]:  # noqa: ASYNC110 - a client asking
                    await asyncio.sleep(0.02)
                found.append(time.perf_counter() - t0)
            finally:
                path.unlink()
            await asyncio.sleep(args.poll_s)  # the deletion found too, before the next edit
        return {
            "notes": args.notes,
            "poll_s": args.poll_s,
            "load_avg_1_5_15": [round(x, 2) for x in os.getloadavg()],
            "rss_mb_before_after_looks": [rss_before, rss_after],
            "first_look_cpu_ms": round(cpus[0] * 1000, 1),
            "look_wall_ms": summary_ms(walls[1:]),
            "look_cpu_ms": summary_ms(cpus[1:]),
            "look_own_cpu_ms": summary_ms(owns[1:]),
            "pause_after_look_s": round(max(args.poll_s, watch_poll.SHARE * statistics.median(owns[1:])), 2),
            "written_to_found_ms": summary_ms(found),
        }


def child(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One run of `measure` in a child process, with vaultgate (and the tests' harness) from `tree`."""
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", "--notes", str(args.notes)]
    argv += ["--looks", str(args.looks), "--edits", str(args.edits), "--poll-s", str(args.poll_s)]
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONSAFEPATH": "1"}
    done = subprocess.run(argv, env=env, cwd=tree, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def medians(runs: list[dict[str, Any]]) -> dict[str, float]:
    """The median over runs of the figures compared between trees."""
    picks = {
        "first_look_cpu_ms": lambda r: r["first_look_cpu_ms"],
        "look_cpu_p50_ms": lambda r: r["look_cpu_ms"]["p50_ms"],
        "look_own_cpu_p50_ms": lambda r: r["look_own_cpu_ms"]["p50_ms"],
        "look_wall_p50_ms": lambda r: r["look_wall_ms"]["p50_ms"],
        "found_p50_ms": lambda r: r["written_to_found_ms"]["p50_ms"],
        "found_p95_ms": lambda r: r["written_to_found_ms"]["p95_ms"],
        "rss_after_looks_mb": lambda r: r["rss_mb_before_after_looks"][1],
        "rss_growth_mb": lambda r: r["rss_mb_before_after_looks"][1] - r["rss_mb_before_after_looks"][0],
    }
    return {name: round(statistics.median(pick(r) for r in runs), 1) for name, pick in picks.items()}


def alternated(args: argparse.Namespace) -> dict[str, Any]:
    standard_vault(args.notes)  # generated (and its index built by the first run) once, before any timing
    trees = [ROOT, *(src.resolve() for src in args.src)]
    for tree in trees:
        compileall.compile_dir(tree / "service", quiet=1)
    runs: dict[str, list[dict[str, Any]]] = {str(tree): [] for tree in trees}
    for r in range(args.rounds):
        for tree in trees if r % 2 == 0 else trees[::-1]:
            runs[str(tree)].append(child(tree, args))
    summary = {tree: medians(found) for tree, found in runs.items()}
    this = summary[str(ROOT)]
    ratios = {
        tree: {k: round(v / this[k], 2) if this[k] else None for k, v in figures.items()}
        for tree, figures in summary.items()
        if tree != str(ROOT)
    }
    return {"notes": args.notes, "rounds": args.rounds, "medians": summary, "other_over_this": ratios, "runs": runs}


if __name__ == "__main__":  # worker processes of the index's bulk load import this module again
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--looks", type=int, default=5)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--poll-s", type=float, default=2.0)
    parser.add_argument("--src", type=Path, action="append", default=[], help="also run vaultgate from this tree")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parsed = parser.parse_args()
    if parsed.child:
        print(json.dumps(asyncio.run(measure(parsed))))
    elif parsed.src:
        report("bench_poll", alternated(parsed))
    else:
        report("bench_poll", asyncio.run(measure(parsed)))
