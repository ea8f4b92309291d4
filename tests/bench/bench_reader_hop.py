"""What handing a read to a pooled reader's thread costs, against running it on the event loop.

    python -m tests.bench.bench_reader_hop [--notes 10000] [--calls 300]

On the standard workload's index (opened in place, read only: a one-row query), in this
process: `Database.run_read` (the query in the reader's thread, the answer back through the
loop's self-pipe) and `Database.run_read_here` (on the loop when no reader is busy), alternated
call by call, `--calls` each, first back to back and then with a 10 ms sleep before each call —
the pause every call of a server asked now and then meets, after which both threads have to be
woken. Prints p50/p90 in microseconds per way and pause. Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import time
from typing import Any

from service.settings import load_settings
from service.storage.db import Database
from tests.bench.common import report, standard_vault

PAUSES_S = (0.0, 0.010)


def _one_row(conn: sqlite3.Connection) -> Any:
    return conn.execute("SELECT count(*) FROM notes WHERE id < 50").fetchone()


async def run(notes: int, calls: int) -> dict[str, Any]:
    vault, _ = standard_vault(notes)
    db = Database(load_settings(vault).cache_dir() / "cache.db", readers=2)
    await db.open()
    ways = {"thread": db.run_read, "loop": db.run_read_here}
    out: dict[str, Any] = {}
    try:
        for pause in PAUSES_S:
            times: dict[str, list[float]] = {w: [] for w in ways}
            for _ in range(calls):
                for way, call in ways.items():
                    await asyncio.sleep(pause)
                    t = time.perf_counter()
                    await call(_one_row)
                    times[way].append((time.perf_counter() - t) * 1e6)
            out[f"pause_{int(pause * 1000)}ms"] = {
                w: {"p50_us": round(statistics.median(xs), 1), "p90_us": round(sorted(xs)[int(0.9 * len(xs))], 1)}
                for w, xs in times.items()
            }
    finally:
        await db.close()
    return {"notes": notes, "calls": calls, "load_avg_1_5_15": [round(x, 2) for x in os.getloadavg()], **out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    report("bench_reader_hop", asyncio.run(run(args.notes, args.calls)))


if __name__ == "__main__":
    main()
