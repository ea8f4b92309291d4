"""Paging a vault-wide edit's dry run to its end: each page's time and CPU.

    python -m tests.bench.bench_preview_pages [--vault DIR] [--limit 50] [--repeat 2]

On a copy of `--vault` (default: the test data's zettelkasten, `VAULTGATE_TEST_DATA`; else the
standard 10k workload), indexed in this process with the watcher off, drives through the full
dispatch chain, page after page (`next_cursor`) with `limit` changes a page:
- `folder_move`: move_note of the vault's largest top folder to `Moved/`;
- `hub_rename`: rename_note of the most linked note;
- `hub_rewrite`: rewrite_links from the most linked note to another note (the link repair alone).
Each is paged `--repeat` times; per run: pages, the first page's and the later pages' median wall
time (ms), the whole paging's wall time and this process's CPU (the parse pool is idle by then),
and the totals the last page reports (they must not change between runs). Prints one JSON object
(see tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.common import report, standard_vault
from tests.conftest import Harness, started
from tests.real_vaults import writable_copy

TOTALS = ("files_moved", "files_changed", "notes_rewritten", "links_rewritten")


async def _pages(vg: Harness, tool: str, args: dict[str, Any], limit: int) -> dict[str, Any]:
    walls: list[float] = []
    cpu0, t0 = time.process_time(), time.perf_counter()
    cursor: str | None = None
    while True:
        a = time.perf_counter()
        page = await vg.ok(tool, **args, dry_run=True, limit=limit, **({"cursor": cursor} if cursor else {}))
        walls.append(time.perf_counter() - a)
        cursor = page.get("next_cursor")
        if not cursor:
            break
    return {
        "pages": len(walls),
        "first_ms": round(walls[0] * 1000, 1),
        "later_median_ms": round(statistics.median(walls[1:]) * 1000, 1) if len(walls) > 1 else None,
        "total_s": round(time.perf_counter() - t0, 2),
        "cpu_s": round(time.process_time() - cpu0, 2),
        "totals": {k: page[k] for k in TOTALS if k in page},
    }


async def main(vault: Path, limit: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = writable_copy(vault, Path(tmp) / "vault", ignore=shutil.ignore_patterns(".vaultgate"))
        result: dict[str, Any] = {"vault": vault.name, "limit": limit, "load_avg_1_5_15": list(os.getloadavg())}
        async with started(root, index={"watch": False}) as vg:
            await vg.indexed()
            db = vg.app.services.db
            rows = await db.fetchall("SELECT path FROM notes WHERE path LIKE '%/%'")
            folders: dict[str, int] = {}
            for (path,) in rows:
                top = str(path).split("/", 1)[0]
                if not top.startswith("."):
                    folders[top] = folders.get(top, 0) + 1
            biggest = min(folders, key=lambda f: (-folders[f], f))
            hub = await db.fetchone(
                "SELECT target_path FROM links WHERE target_path LIKE '%.md' GROUP BY target_path "
                "ORDER BY count(*) DESC, target_path LIMIT 1"
            )
            assert hub is not None
            hub_path = str(hub[0])
            stem = hub_path.rsplit("/", 1)[-1].removesuffix(".md")
            other = next(str(p) for (p,) in rows if str(p) != hub_path and str(p).endswith(".md"))
            calls = {
                "folder_move": ("move_note", {"path": biggest + "/", "new_path": "Moved/" + biggest + "/"}),
                "hub_rename": ("rename_note", {"path": hub_path, "new_path": "Renamed " + stem}),
                "hub_rewrite": ("rewrite_links", {"old_target": hub_path, "new_target": other}),
            }
            result["folder"], result["hub"] = biggest, hub_path
            for name, (tool, args) in calls.items():
                result[name] = [await _pages(vg, tool, args, limit) for _ in range(repeat)]
    report("bench_preview_pages", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vault", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=2)
    opts = parser.parse_args()
    data = os.environ.get("VAULTGATE_TEST_DATA")
    vault = opts.vault
    if vault is None:
        zk = Path(data) / "vaults" / "digitalyoshixi-zettelkasten" if data else None
        vault = zk if zk is not None and zk.is_dir() else standard_vault()[0]
    sys.exit(asyncio.run(main(vault, opts.limit, opts.repeat)))
