"""Graph benchmark: backlinks, neighbourhoods, broken links and link-safe moves (a note, and three
~250-note project folders moved to Archive/) on the standard vault.

Run: `python -m tests.bench.bench_graph [--notes 10000] [--calls 200]`. Works on a copy of the
generated vault (moves change files), drives the tools in-process through the full dispatch
chain, and prints one JSON object (see tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.common import report, standard_vault, summary_ms
from tests.conftest import Harness, started


async def _timed(vg: Harness, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, float]:
    samples: list[float] = []
    for tool, args in calls:
        t0 = time.perf_counter()
        await vg.ok(tool, **args)
        samples.append(time.perf_counter() - t0)
    return summary_ms(samples)


async def main(notes: int, calls: int) -> None:
    source, _ = standard_vault(notes)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".vaultgate"))
        result: dict[str, Any] = {"notes": notes, "python": sys.version.split()[0]}
        async with started(root) as vg:
            t0 = time.perf_counter()
            await vg.indexed()
            result["index_s"] = round(time.perf_counter() - t0, 3)
            db = vg.app.services.db
            rows = await db.fetchall("SELECT path FROM notes ORDER BY path")
            paths = [str(r[0]) for r in rows]
            top = await db.fetchall(
                "SELECT target_path, count(*) AS n FROM links WHERE target_path LIKE '%.md' "
                "GROUP BY target_path ORDER BY n DESC LIMIT 5"
            )
            rng = random.Random(7)
            sample = [rng.choice(paths) for _ in range(calls)]
            result["get_backlinks"] = await _timed(vg, [("get_backlinks", {"path": p}) for p in sample])
            result["get_outlinks"] = await _timed(vg, [("get_outlinks", {"path": p}) for p in sample])
            result["graph_neighbors_depth2"] = await _timed(
                vg, [("graph_neighbors", {"path": p, "depth": 2}) for p in sample[: calls // 4]]
            )
            result["find_broken_links_100"] = await _timed(vg, [("find_broken_links", {"limit": 100})] * 10)
            target, inbound = str(top[0][0]), int(top[0][1])
            result["rename_target_inbound_links"] = inbound
            # Renaming the most-linked note rewrites every link to it (a move to another folder
            # keeps bare-name links valid, so it rewrites few; it also needs a human's approval).
            renamed = target.rsplit("/", 1)[-1].removesuffix(".md") + " (renamed)"
            result["rename_note_dry_run"] = await _timed(
                vg, [("rename_note", {"path": target, "new_path": renamed, "dry_run": True})] * 3
            )
            t0 = time.perf_counter()
            out = await vg.ok("rename_note", path=target, new_path=renamed)
            result["rename_note_apply_ms"] = round((time.perf_counter() - t0) * 1000, 1)
            result["rename_note_files_changed"] = out["files_changed"]
            result["rename_note_links_rewritten"] = out["links_rewritten"]
            moved_from = out["path"]
            new_path = "Bench Moved/" + moved_from.rsplit("/", 1)[-1]
            token = await vg.token_for("move_note", path=moved_from, new_path=new_path)  # approved, untimed
            t0 = time.perf_counter()
            moved = await vg.ok("move_note", path=moved_from, new_path=new_path, elicit_token=token)
            result["move_note_other_folder_apply_ms"] = round((time.perf_counter() - t0) * 1000, 1)
            result["move_note_other_folder_files_changed"] = moved["files_changed"]
            result["folder_moves"] = [await _folder_move(vg, f"Projects/{name}") for name in ("Alpha", "Beta", "Gamma")]
    report("graph", result)


async def _folder_move(vg: Harness, folder: str) -> dict[str, Any]:
    """A project folder (~250 notes) moved to Archive/: its dry-run preview, then the confirmed
    move (the confirmation's own preview untimed); wall time and the process's CPU time (all of
    its threads: planning runs off the event loop), which moves less with the machine's load."""
    dest = "Archive/" + folder.rsplit("/", 1)[-1]
    t0, c0 = time.perf_counter(), time.process_time()
    await vg.ok("move_note", path=folder, new_path=dest, dry_run=True, limit=50)
    t1, c1 = time.perf_counter(), time.process_time()
    token = await vg.token_for("move_note", path=folder, new_path=dest)
    t2, c2 = time.perf_counter(), time.process_time()
    done = await vg.ok("move_note", path=folder, new_path=dest, elicit_token=token)
    t3, c3 = time.perf_counter(), time.process_time()
    return {
        "folder": folder,
        "files_moved": done["files_moved"],
        "links_rewritten": done["links_rewritten"],
        "preview_ms": round((t1 - t0) * 1000, 1),
        "preview_cpu_ms": round((c1 - c0) * 1000, 1),
        "move_ms": round((t3 - t2) * 1000, 1),
        "move_cpu_ms": round((c3 - c2) * 1000, 1),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=200)
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.calls))
