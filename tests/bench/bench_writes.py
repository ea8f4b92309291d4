"""The write path in process: concurrent writers on the standard workload, CPU per write.

    python -m tests.bench.bench_writes [--old DIR] [--rounds 3] [--writers 16] [--each 15]

Each round starts a fresh process per side (this checkout, and `--old DIR` when given,
alternating), which serves its own copy of the 10k-note workload (index kept between rounds in
its own folder) and runs `--writers` concurrent writers through the full dispatch chain. Each
writer makes `--each` times: a `create_note` whose text links to a missing note and to an
existing one (an index round that adds a file and re-resolves links), a `write_note` to a new
path given without `.md` (an address resolved against every note's name before the note is
created where it says), and an `append_note` to its first note. In process, a write returns once
its index update is in (as for an embedding program), so the index work is inside each write.
Reported per side: the process's CPU per write (every thread: the figure that survives a loaded
machine) and wall time per write, median over rounds. Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.bench.common import BENCH_ENV, WORKDIR, report, standard_vault

ROOT = Path(__file__).resolve().parents[2]


async def one_round(tag: str, writers: int, each: int) -> dict[str, float]:
    from tests.conftest import started  # the server of whichever tree is first on the path

    source, _ = standard_vault(10_000)
    home = WORKDIR / f"writes-{tag}"
    root = home / "vault"
    if not root.exists():
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".vaultgate", ".obsidian", ".git"))
    async with started(root, storage={"cache_dir": str(home / "cache")}, index={"watch": True}) as h:
        await h.indexed()
        run = f"W{time.time_ns()}"

        async def writer(w: int) -> None:
            for i in range(each):
                made = await h.call(
                    "create_note", path=f"{run}/{w}/n{i}.md", content=f"# N {i}\n\n[[Missing {w} {i}]], [[Home]].\n"
                )
                named = await h.call("write_note", path=f"{run}/{w}/w{i}", content="text\n", mode="overwrite")
                added = await h.call("append_note", path=f"{run}/{w}/n0.md", content=f"- {i}\n")
                if made.is_error or named.is_error or added.is_error:
                    raise RuntimeError(f"a write failed: {made.structured} {named.structured} {added.structured}")

        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(writer(w) for w in range(writers)))
        n = writers * each * 3
        return {
            "cpu_ms_per_write": (time.process_time() - cpu) / n * 1000,
            "wall_ms_per_write": (time.perf_counter() - wall) / n * 1000,
        }


def run_side(src: Path, tag: str, writers: int, each: int) -> dict[str, float]:
    # This file runs as a script with the side's tree first on the path: its `service` and
    # `tests.conftest` serve, whether or not that tree has this benchmark.
    env = {**os.environ, **BENCH_ENV, "PYTHONPATH": str(src), "PYTHONSAFEPATH": "1"}
    argv = [sys.executable, str(Path(__file__).resolve()), "--round", tag, "--writers", str(writers)]
    out = subprocess.run(
        [*argv, "--each", str(each)], env=env, cwd=src, capture_output=True, text=True, check=True
    ).stdout
    figures: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, help="also run another source tree, alternating")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--each", type=int, default=15)
    parser.add_argument("--round", help=argparse.SUPPRESS)  # one side's round, in a child process
    args = parser.parse_args()
    if args.round is not None:
        print(json.dumps(asyncio.run(one_round(args.round, args.writers, args.each))))
        return
    sides = {"new": ROOT, **({"old": args.old.resolve()} if args.old is not None else {})}
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        names = list(sides)
        for name in names[r % len(names) :] + names[: r % len(names)]:
            samples[name].append(run_side(sides[name], name, args.writers, args.each))
        loads.append(os.getloadavg()[0])
    result: dict[str, Any] = {
        "writers": args.writers,
        "writes_per_round": args.writers * args.each * 3,
        "rounds": args.rounds,
        "load_1min": [round(x, 2) for x in loads],
    }
    for name, runs in samples.items():
        result[name] = {
            key: round(statistics.median(run[key] for run in runs), 3)
            for key in ("cpu_ms_per_write", "wall_ms_per_write")
        }
        result[name]["rounds"] = [{k: round(v, 3) for k, v in run.items()} for run in runs]
    if "old" in sides:
        result["new_over_old"] = {
            key: round(result["new"][key] / result["old"][key], 3) for key in ("cpu_ms_per_write", "wall_ms_per_write")
        }
        result["old_src"] = str(args.old)
    report("writes", result)


if __name__ == "__main__":
    main()
