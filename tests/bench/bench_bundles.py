"""Context bundles benchmark: bundle_folder / bundle_files on the standard vault.

Run: `python -m tests.bench.bench_bundles [--notes 10000] [--calls 20]`. Picks the folder whose
notes (recursive) number closest to 500 (Inbox/, 521 notes, at the standard 10k workload), drives
the tools in-process through the full dispatch chain after the index is built, and prints one
JSON object (see tests/bench/common.py): the first page under a 200 KB budget (the target is a
p50 of at most 300 ms), the same by estimated tokens and body only, every page of the folder, and
bundle_files of 100 notes. Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tests.bench.common import report, standard_vault, summary_ms
from tests.conftest import Harness, started


def folder_near(root: Path, size: int) -> tuple[str, int]:
    counts: Counter[str] = Counter()
    for note in root.rglob("*.md"):
        parts = note.relative_to(root).parts[:-1]
        for depth in range(1, len(parts) + 1):
            counts["/".join(parts[:depth])] += 1
    return min(counts.items(), key=lambda kv: (abs(kv[1] - size), kv[0]))


async def _timed(vg: Harness, calls: int, tool: str, **args: Any) -> tuple[dict[str, float], dict[str, Any]]:
    samples: list[float] = []
    out: dict[str, Any] = {}
    for _ in range(calls):
        t0 = time.perf_counter()
        out = await vg.ok(tool, **args)
        samples.append(time.perf_counter() - t0)
    return summary_ms(samples), out


async def main(notes: int, calls: int) -> None:
    root, _ = standard_vault(notes)
    folder, count = folder_near(root, 500)
    result: dict[str, Any] = {"notes": notes, "python": sys.version.split()[0], "folder": folder, "folder_notes": count}
    async with started(root) as vg:
        await vg.indexed(within=1800)
        timing, page = await _timed(vg, calls, "bundle_folder", folder=folder, max_bytes=200_000)
        result["bundle_folder_200KB_first_page"] = timing
        result["first_page_entries"] = len(page["entries"])
        result["first_page_used_bytes"] = page["manifest"]["used"]
        timing, _ = await _timed(vg, calls, "bundle_folder", folder=folder, max_tokens=50_000)
        result["bundle_folder_50k_tokens_first_page"] = timing
        timing, _ = await _timed(vg, calls, "bundle_folder", folder=folder, max_bytes=200_000, mode="body")
        result["bundle_folder_200KB_body_first_page"] = timing
        t0 = time.perf_counter()
        pages, cursor = 0, None
        while True:
            out = await vg.ok(
                "bundle_folder", folder=folder, max_bytes=200_000, **({"cursor": cursor} if cursor else {})
            )
            pages += 1
            cursor = out["next_cursor"]
            if cursor is None:
                break
        result["bundle_folder_200KB_all_pages_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        result["all_pages"] = pages
        paths = sorted(str(p.relative_to(root)) for p in (root / folder).rglob("*.md"))[:100]
        timing, _ = await _timed(vg, calls, "bundle_files", paths=paths, max_bytes=200_000)
        result["bundle_files_100_200KB"] = timing
    report("bundles", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=20)
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.calls))
