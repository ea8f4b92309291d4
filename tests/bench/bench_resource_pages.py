"""`resources/list` page after page, as a client that lists a vault's notes as resources does:
the SDK's `Client` over Streamable HTTP follows `next_cursor` for `--pages` pages (200 notes
each; 0: to the end), p50 of a page at the client, the first page, the whole listing and the
server's CPU for it; then a note path typed into `summarize_note`'s `path` a character at a
time (`completion/complete` per keystroke, as an editor asks), p50 at the client. Give code
roots (a `git worktree` of an older commit, this checkout) to serve each from its own copy of
the code, all up at once, asked in turn round after round.

    python -m tests.bench.bench_resource_pages [--notes 10000] [--pages 0] [--rounds 3] [ROOT ...]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from pathlib import Path
from typing import Any

from tests.bench.common import percentile, report, served_roots, standard_vault, thread_cpu_ns


async def measure(url: str, pid: int, pages: int) -> dict[str, Any]:
    import mcp_types as types
    from mcp import Client

    samples: list[float] = []
    notes = 0
    cursor = None
    cpu0, t0 = thread_cpu_ns(pid), time.perf_counter()
    async with Client(url, mode="legacy") as client:
        while True:
            t1 = time.perf_counter()
            page = await client.list_resources(cursor=cursor)
            samples.append((time.perf_counter() - t1) * 1000)
            notes += len(page.resources)
            cursor = page.next_cursor
            if cursor is None or len(samples) == pages:
                break
        typed = page.resources[-1].name[:12]
        keys: list[float] = []
        for n in range(1, len(typed) + 1):
            t1 = time.perf_counter()
            await client.complete(types.PromptReference(name="summarize_note"), {"name": "path", "value": typed[:n]})
            keys.append((time.perf_counter() - t1) * 1000)
    return {
        "keystroke_p50_ms": round(percentile(keys, 50), 2),
        "pages": len(samples),
        "notes": notes,
        "first_page_ms": round(samples[0], 1),
        "page_p50_ms": round(percentile(samples, 50), 2),
        "total_s": round(time.perf_counter() - t0, 2),
        "server_cpu_s": round((thread_cpu_ns(pid) - cpu0) / 1e9, 2),
    }


async def run(roots: list[str], notes: int, pages: int, rounds: int) -> dict[str, Any]:
    vault, _ = standard_vault(notes)
    runs: dict[str, list[dict[str, Any]]] = {}
    async with served_roots(roots, vault) as servers:
        for _ in range(rounds):
            for root, server, url in servers:
                runs.setdefault(root, []).append(await measure(url, server.pid, pages))
    medians = {
        root: {key: percentile([r[key] for r in done], 50) for key in done[0] if key not in ("pages", "notes")}
        for root, done in runs.items()
    }
    load = os.getloadavg()[0]
    return {"notes": notes, "pages": pages, "rounds": rounds, "load": load, "medians": medians, "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("roots", nargs="*", help="code roots to serve from (default: this checkout)")
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--pages", type=int, default=0, help="pages to list (0: all)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    roots = args.roots or [str(Path(__file__).resolve().parents[2])]
    report("resource_pages", asyncio.run(run(roots, args.notes, args.pages, args.rounds)))


if __name__ == "__main__":
    main()
