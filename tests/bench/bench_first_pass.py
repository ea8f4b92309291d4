"""The exact scan's first pass (service/semantic/codes.py) against the scan of every vector, in
process, on the vectors of an embedded index.

Run (an index folder whose vault was embedded by the built-in model, e.g. the 10k workload's):

    python -m tests.bench.bench_first_pass --index CACHE_DIR [--queries workload|scifact|help]

It reads the vault's chunk vectors from CACHE_DIR/cache.db (read-only), embeds the query set with
the built-in model (`workload`: the 50 queries of the standard workload; `scifact` / `help`: the
question sets of tests/bench/quality.py, with --data or $VAULTGATE_TEST_DATA) and also takes up to
200 note vectors (the mean of a note's chunks, as find_similar asks). It reports, for k = 10, 64
and 400, the share of the exact top k the first pass returns (mean, worst query, queries answered
identically), and per-query times (median, ms) of the plain scan, the first pass's parts and both
rankings, timed alternately. Prints one JSON object (tests/bench/common.py).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from service.semantic import codes, vectors
from tests.bench.common import report, standard_vault

Array = np.ndarray[Any, Any]


def load(db: Path) -> tuple[Array, Array, Array]:
    """(chunk ids, vectors, note ids) of the vault's chunks, by chunk id."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT c.id, e.vector, c.note_id FROM chunks c JOIN embeddings e ON e.hash = c.hash "
        "WHERE c.vault_id = (SELECT MIN(vault_id) FROM chunks) ORDER BY c.id"
    ).fetchall()
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    notes = np.array([r[2] for r in rows], dtype=np.int64)
    return ids, np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows]), notes


def note_vectors(matrix: Array, notes: Array, n: int = 200) -> Array:
    unique = np.unique(notes)
    out = []
    for note in unique[:: max(1, len(unique) // n)][:n]:
        mean = matrix[notes == note].mean(axis=0)
        out.append(mean / np.linalg.norm(mean))
    return np.array(out, dtype=np.float32)


def query_texts(name: str, data: str | None) -> list[str]:
    if name == "workload":
        return [str(q["q"]) for q in standard_vault(10_000)[1]["queries"]]
    from tests.bench import quality

    root = Path(data or os.environ.get("VAULTGATE_TEST_DATA", "")).expanduser()
    if name == "help":
        return [q.text for q in quality.obsidian_help(root).queries]
    return [q.text for q in quality.scifact(root, root / "vaults" / "scifact").queries]


def agreement(rank: Callable[[Array, int], Any], queries: Array) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in (10, 64, 400):
        shares, same = [], 0
        for q in queries:
            exact, fast = rank(q, 10**9)(k), rank(q, 0)(k)
            shares.append(len({i for i, _ in exact} & {i for i, _ in fast}) / max(1, len(exact)))
            same += exact == fast
        out[f"k{k}"] = {"mean": round(float(np.mean(shares)), 4), "worst": round(min(shares), 4), "identical": same}
    return out


def main(ns: argparse.Namespace) -> None:
    from service.embeddings import builtin

    ids, matrix, notes = load(Path(ns.index) / "cache.db")
    queries = builtin.encode(query_texts(ns.queries, ns.data))
    similar = note_vectors(matrix, notes)
    cache = vectors.ScanCache()
    # the vectors as ScanCache.matrix holds them (version, seq, ids, used rows, store, dead rows), current
    # as of the index's last chunk change, so the scan takes them as they are
    conn = sqlite3.connect(f"file:{Path(ns.index) / 'cache.db'}?mode=ro", uri=True)
    seq = vectors.last_change(conn)
    cache._mats[("v", "m")] = vectors._Matrix(0, seq, ids, matrix, matrix, np.zeros(0, dtype=np.int64))

    def rank(q: Array, rows: int) -> Any:
        return vectors.scan_ranking(conn, cache, "v", "m", q, first_pass_rows=rows)

    t0 = time.perf_counter()
    rank(queries[0], 0)(10)
    built = time.perf_counter() - t0
    mat = cache._mats[("v", "m")]
    made = mat.codes
    parts: dict[str, Callable[[Array], Any]] = {"plain scan (einsum)": lambda q: np.einsum("ij,j->i", matrix, q)}
    if made is not None:
        parts["first pass (estimates)"] = lambda q: codes.estimates(made, q)
        parts["pick 2,000"] = lambda q: codes.candidates(codes.estimates(made, q), 2000)
    for k in (64, 400):
        parts[f"plain top {k}"] = lambda q, k=k: rank(q, 10**9)(k)
        parts[f"first pass top {k}"] = lambda q, k=k: rank(q, 0)(k)
    times: dict[str, list[float]] = {name: [] for name in parts}
    for _ in range(ns.rounds):
        for name, part in parts.items():
            for q in queries:
                t = time.perf_counter()
                part(q)
                times[name].append((time.perf_counter() - t) * 1000)
    report(
        ns.name,
        {
            "rows": len(ids),
            "dim": int(matrix.shape[1]),
            "codes_bytes": made.nbytes() if made is not None else 0,
            "first_call_ms": round(built * 1000, 1),
            "agreement": {"queries": agreement(rank, queries), "note_vectors": agreement(rank, similar)},
            "median_ms": {name: round(float(np.median(v)), 3) for name, v in times.items()},
            "load": round(os.getloadavg()[0], 2),
        },
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--index", required=True, help="an index folder holding cache.db (VAULTGATE_STORAGE__CACHE_DIR)"
    )
    parser.add_argument("--queries", default="workload", choices=["workload", "scifact", "help"])
    parser.add_argument("--data", help="folder holding vaults/ and scifact/ (default: $VAULTGATE_TEST_DATA)")
    parser.add_argument("--rounds", type=int, default=3, help="timing rounds (each times every part on every query)")
    parser.add_argument("--name", default="bench_first_pass", help="result name (tests/bench/results/NAME.json)")
    main(parser.parse_args())
