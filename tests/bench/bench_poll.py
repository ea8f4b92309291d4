"""What one look of the polling watcher costs (`service/indexer/watch_poll.py`), and how long an
edit made by another program takes to be found while polling.

    python -m tests.bench.bench_poll [--notes 10000] [--looks 5] [--edits 5] [--poll-s 2]

Starts the app in this process on the standard workload's vault with `[index] watch_mode =
"poll"` (the index built first when missing), waits until it is ready and settled, then times
`--looks` looks (`reconcile.drift`: the folders' scan and the index's rows, nothing changed):
wall and process CPU per look, the pause polling takes after such a look (at least 20 times
the look's CPU time), and the process's RSS before and after the looks. Then `--edits` times a
new note is written as another program would and `search_text` asked every 20 ms until it finds
it: file written -> found, about half of the pause plus a look (up to two pauses when a look has
passed the folder already). Prints one JSON object (see tests/bench/common.py). Not part of
the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from typing import Any

from tests.bench.common import BENCH_ENV, report, rss_mb, standard_vault, summary_ms

SETTLE_LIMIT_S = 120


async def main(args: argparse.Namespace) -> dict[str, Any]:
    os.environ.update(BENCH_ENV)
    from service.indexer import watch_poll
    from service.indexer.reconcile import drift
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
        ix = vg.indexer()
        rss_before = rss_mb(os.getpid())
        walls: list[float] = []
        cpus: list[float] = []
        for _ in range(args.looks):
            cpu0, t0 = time.process_time(), time.perf_counter()
            differ, _cpu = await drift(ix)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - cpu0)
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
            "look_wall_ms": summary_ms(walls),
            "look_cpu_ms": summary_ms(cpus),
            "pause_after_look_s": round(max(args.poll_s, watch_poll.SHARE * sorted(cpus)[len(cpus) // 2]), 2),
            "written_to_found_ms": summary_ms(found),
        }


if __name__ == "__main__":  # worker processes of the index's bulk load import this module again
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--looks", type=int, default=5)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--poll-s", type=float, default=2.0)
    report("bench_poll", asyncio.run(main(parser.parse_args())))
