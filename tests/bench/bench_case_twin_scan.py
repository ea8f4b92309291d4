"""The case-twin check's cost to other callers: how long one create of a new note into a big
folder holds the event loop (`service.vault.casing`, review R1 s63 F5), in process.

    python -m tests.bench.bench_case_twin_scan [--old /path/to/old/worktree] [--sizes 10000 50000]
        [--creates 15] [--rounds 2]

One folder of N empty notes, half of them named with non-ASCII letters (`Zoë n17.md`, each of
which the check normalizes and lower-cases). Each create is `VaultFiles.write(create_only=True)`
of a new name (`--names`: non-ASCII `Zoë neu 3.md`, ASCII `brand new 3.md`; removed again
after): every odd one timed alone, every even one while a task on the same loop measures the
longest gap between its turns (the stall every other call sees; that task spins and competes
with the worker thread for the GIL, so those calls are not timed). With
`--old`, each round runs the same in a child process importing the code of that worktree and
one importing this one, alternated (order swapped every round). Reported per side and size:
medians over all creates of the call's milliseconds and of the longest loop stall. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import asyncio, json, os, sys, time
sys.path.insert(0, {code!r})
from service.vault.events import ChangeBus
from service.vault.files import VaultFiles
from service.vault.paths import VaultPaths

async def main():
    root = {root!r}
    paths = VaultPaths(__import__("pathlib").Path(root))
    files = VaultFiles(paths, ChangeBus(), max_concurrent=4, trash_folder=".trash")
    calls, stalls = [], []
    for k in range({creates}):
        vp = files.paths.resolve({name!r} % k, op="write")
        done = False
        longest = 0.0

        async def ticker():
            nonlocal longest
            last = time.perf_counter()
            while not done:
                await asyncio.sleep(0)
                now = time.perf_counter()
                longest = max(longest, now - last)
                last = now

        timed = k % 2  # odd: the call alone; even: with the ticker (which competes for the GIL)
        tick = None if timed else asyncio.create_task(ticker())
        await asyncio.sleep(0)
        start = time.perf_counter()
        await files.write(vp, "x", create_only=True)
        elapsed = (time.perf_counter() - start) * 1000
        done = True
        if tick is None:
            calls.append(elapsed)
        else:
            await tick
            stalls.append(longest * 1000)
        os.unlink(vp.abs)
    print(json.dumps({{"call_ms": calls, "stall_ms": stalls}}))

asyncio.run(main())
"""


def folder_of(size: int, base: Path) -> Path:
    root = base / f"v{size}"
    inbox = root / "Inbox"
    inbox.mkdir(parents=True)
    for i in range(size):
        (inbox / (f"Zoë n{i}.md" if i % 2 else f"note {i}.md")).touch()
    return root


def run(code: str, root: Path, creates: int, name: str) -> dict[str, list[float]]:
    src = CHILD.format(code=code, root=str(root), creates=creates, name=name)
    out = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, check=True, cwd=code)
    result: dict[str, list[float]] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", default=None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    parser.add_argument("--creates", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--names", nargs="+", default=["Inbox/Zoë neu %d.md", "Inbox/brand new %d.md"])
    args = parser.parse_args()
    new = str(Path(__file__).resolve().parents[2])
    sides = {"new": new} | ({"old": args.old} if args.old else {})
    report: dict[str, object] = {"load_before": os.getloadavg()[0], "creates_per_round": args.creates}
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            root = folder_of(size, Path(tmp))
            for name in args.names:
                got: dict[str, dict[str, list[float]]] = {side: {"call_ms": [], "stall_ms": []} for side in sides}
                for n in range(args.rounds):
                    order = list(sides) if n % 2 else list(reversed(sides))
                    for side in order:
                        one = run(sides[side], root, args.creates, name)
                        for key in one:
                            got[side][key] += one[key]
                report[f"{size} {name}"] = {
                    side: {key: round(statistics.median(vals), 2) for key, vals in got[side].items()} for side in sides
                }
    report["load_after"] = os.getloadavg()[0]
    report["at"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
