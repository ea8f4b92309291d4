"""Louvain alone: `service.graph.analytics.communities` timed in process on the link graph of an
indexed standard vault (the index's links, as the topic maps read them), two calls in a row (the first
pays for importing igraph).

Run: `python -m tests.bench.bench_louvain --db <cache.db> [--src TREE]`, e.g. the index of the 100k
vault under `$VAULTGATE_BENCH_DIR/xdg-cache/vaultgate/vault-100000-42-*/cache.db` (index it once with
any benchmark's `--notes 100000`); `--src` imports `service` from another checkout (a worktree of an
older commit) to compare. Prints one JSON object. Not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True, help="an index's cache.db")
    parser.add_argument("--src", default="", help="import `service` from this checkout")
    args = parser.parse_args()
    if args.src:
        sys.path.insert(0, args.src)
    from service.graph import analytics as ga

    with sqlite3.connect(f"file:{args.db}?mode=ro", uri=True) as c:
        rows = c.execute(
            "SELECT n.path, l.target_path FROM links l JOIN notes n ON n.id = l.src_id WHERE l.target_path LIKE '%.md'"
        ).fetchall()
        notes = [str(r[0]) for r in c.execute("SELECT path FROM notes")]
    g = ga.NoteGraph.build(rows, notes)
    g.undirected()
    result: dict[str, object] = {"source": ga.__file__, "notes": len(g), "links": g.links}
    for k in ("first", "second"):
        t0, c0 = time.perf_counter(), time.process_time()
        found = ga.communities(g)
        result[k] = {"wall_s": round(time.perf_counter() - t0, 3), "cpu_s": round(time.process_time() - c0, 3)}
    result.update(modularity=round(found.modularity, 6), groups=len(found.groups), largest=len(found.groups[0]))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
