"""note_info on a very long note: the call's time and the process's peak memory during it
(review R4 s63 F5: it parsed the whole note, ~2 s and +134 MB at 10 MB, 22 s at 100 MB).

    python -m tests.bench.bench_note_info_long [--old /path/to/old/worktree] [--mb 10 100]
        [--calls 3] [--rounds 2]

One vault, one note of N MB of dense lines (a task with a link and a tag each, as in the review),
saved before the start; the server's default `[limits]` (1 Mi indexed characters), no watcher,
no embeddings. In a child process importing the code of a tree: the app is started, its first
index awaited, then `note_info` is called through the dispatch chain `--calls` times; each call
is timed, and a thread samples the process's RSS every 5 ms during it (peak minus the RSS before
the call: what the call added). With `--old`, each round runs a child on that worktree and one
on this tree, alternated (order swapped every round). Reported per side and size: medians of the
calls' seconds and added MB, and the process's peak RSS (ru_maxrss). Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import asyncio, json, os, resource, sys, threading, time
sys.path.insert(0, {code!r})
import service._deferred_models
from pathlib import Path
from service.app import VaultgateApp
from service.indexer.runner import indexer_of
from service.settings import load_settings
from service.types import Principal

PAGE = os.sysconf("SC_PAGE_SIZE")

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE

async def main():
    settings = load_settings(Path({root!r}), embeddings={{"provider": "none"}}, index={{"watch": False}},
                             plane={{"enabled": False}}, http={{"port": 0}}, storage={{"cache_dir": Path({cache!r})}})
    app = VaultgateApp(settings)
    who = Principal.local("bench")
    secs, added = [], []
    async with app.running():
        for vault in app.vaults.values():
            await indexer_of(vault).wait_ready(600)
        for _ in range({calls}):
            before = rss()
            peak = [before]
            done = threading.Event()
            def sample():
                while not done.wait(0.005):
                    peak[0] = max(peak[0], rss())
            t = threading.Thread(target=sample)
            t.start()
            start = time.perf_counter()
            out = await app.dispatcher.call("note_info", {{"path": "Big"}}, principal=who)
            secs.append(time.perf_counter() - start)
            done.set(); t.join()
            peak[0] = max(peak[0], rss())
            added.append((peak[0] - before) / 1e6)
            assert not out.is_error, out.structured
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    print(json.dumps({{"secs": secs, "added_mb": added, "maxrss_mb": maxrss,
                      "facts_chars": out.structured.get("facts_chars"), "words": out.structured["word_count"]}}))

asyncio.run(main())
"""

LINE = "- [ ] task {i} with [[Note {j}]] and #tag{j} plus some words\n"


def make_note(path: Path, mb: int) -> None:
    with path.open("w", encoding="utf-8") as f:
        f.write("# Big\n\n")
        written, i = 0, 0
        while written < mb * 1_000_000:
            line = LINE.format(i=i, j=i % 5000)
            f.write(line)
            written += len(line)
            i += 1


def run(code: str, root: Path, calls: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="bench-ni-cache-") as cache:
        src = CHILD.format(code=code, root=str(root), cache=cache, calls=calls)
        env = {**os.environ, "PYTHONPATH": code}
        done = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise SystemExit(done.stderr[-3000:])
        out: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default=None)
    ap.add_argument("--mb", type=int, nargs="+", default=[10, 100])
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    new = str(Path(__file__).resolve().parents[2])
    sides = {"new": new} | ({"old": args.old} if args.old else {})
    report: dict[str, object] = {"load_before": os.getloadavg()[0]}
    for mb in args.mb:
        with tempfile.TemporaryDirectory(prefix="bench-ni-vault-") as tmp:
            root = Path(tmp) / "vault"
            root.mkdir()
            make_note(root / "Big.md", mb)
            got: dict[str, list[dict[str, object]]] = {s: [] for s in sides}
            for r in range(args.rounds):
                order = list(sides) if r % 2 == 0 else list(reversed(sides))
                for side in order:
                    got[side].append(run(sides[side], root, args.calls))
            report[f"{mb}MB"] = {
                side: {
                    "median_s": round(statistics.median(s for g in runs for s in g["secs"]), 3),  # type: ignore[attr-defined]
                    "median_added_mb": round(statistics.median(a for g in runs for a in g["added_mb"]), 1),  # type: ignore[attr-defined]
                    "maxrss_mb": [round(float(g["maxrss_mb"]), 1) for g in runs],  # type: ignore[arg-type]
                    "facts_chars": runs[0]["facts_chars"],
                    "word_count": runs[0]["words"],
                }
                for side, runs in got.items()
            }
    report["load_after"] = os.getloadavg()[0]
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
