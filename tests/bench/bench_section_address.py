"""A heading or block address in a long note: `sections.find_heading` / `find_block` time and
traced peak allocation (review R2 s64 F11: each parsed the whole note, ~4 s and +144 MB at 10 MB).

    python -m tests.bench.bench_section_address [--old /path/to/old/worktree] [--lines 200000] [--rounds 2]

One note of `--lines` dense lines (a task with a tag, a link and a block id each, so every line
is looked at by the block scan too), a final `## End` heading. In a child process importing the
code of a tree: find_heading(["End"]) and find_block of the last id, 3 calls each (median
seconds), then one find_heading under tracemalloc (peak MB). With `--old`, each round runs a
child on that worktree and one on this tree, alternated. Prints JSON lines.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, statistics, sys, time, tracemalloc
sys.path.insert(0, {code!r})
from service.markdown import sections
n = {lines}
line = "- [ ] task {{i}} with #tag{{j}} and [[Link{{k}}]] words ^b{{i}}\\n"
text = "# Top\\n" + "".join(line.format(i=i, j=i % 50, k=i % 300) for i in range(n)) + "## End\\nlast\\n"

def median(call):
    times = []
    for _ in range(3):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return round(statistics.median(times), 3)

heading = median(lambda: sections.find_heading(text, ["End"]))
block = median(lambda: sections.find_block(text, f"b{{n - 1}}"))
tracemalloc.start()
sections.find_heading(text, ["End"])
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(json.dumps({{"code": {code!r}, "chars": len(text), "heading_s": heading, "block_s": block,
                  "heading_peak_mb": round(peak / 2**20, 1)}}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default=None)
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parents[2])
    trees = [args.old, here] if args.old else [here]
    for r in range(args.rounds):
        for code in trees if r % 2 == 0 else trees[::-1]:
            subprocess.run([sys.executable, "-c", CHILD.format(code=code, lines=args.lines)], check=True)


if __name__ == "__main__":
    main()
