"""How much of the exact top k the first pass's candidates hold on real vectors, at the share of
the rows they are at 600,000 chunks: float codes (the in-memory layout), int8 codes (the vector
file) on every axis, and int8 with the coarse look on the leading axes first (what the file
layout does from `codes.refine_share` on).

Run (an index embedded by the built-in model, e.g. the one bench_quality leaves for SciFact with
`--vault-dir V` and `VAULTGATE_STORAGE__CACHE_DIR=C`):

    python -m tests.bench.bench_vector_codes --index C --vault V/scifact

SciFact's 10,146 chunks are far below the sizes where the candidates are a small share of the
rows (2,000 of 10,146 hold every exact top 64), so the candidate counts are scaled down to the
shares they have at 599,240 chunks (k = 64: 2,000 candidates, 0.33 %; k = 400: 3,200, 0.53 %;
the coarse look keeps 1/16 of the rows). Prints one JSON object: per (k, candidates), the mean
and worst share of the exact top k held, over SciFact's 300 queries.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from service.semantic import codes
from tests.bench import quality
from tests.bench.common import report

Array = np.ndarray[Any, Any]
CASES = ((10, 34), (10, 64), (64, 200), (64, 400))  # (k, candidates) at 10,146 rows


def held(exact: set[int], rows: Array) -> float:
    return len(exact & set(rows.tolist())) / len(exact)


def main(ns: argparse.Namespace) -> None:
    from service.embeddings import builtin

    conn = sqlite3.connect(f"file:{Path(ns.index) / 'cache.db'}?mode=ro", uri=True)
    blobs = conn.execute("SELECT e.vector FROM chunks c JOIN embeddings e ON e.hash = c.hash ORDER BY c.id")
    matrix = np.stack([np.frombuffer(b[0], dtype=np.float32) for b in blobs])
    data = Path(ns.data or os.environ.get("VAULTGATE_TEST_DATA", ""))
    queries = builtin.encode([q.text for q in quality.scifact(data, Path(ns.vault)).queries])
    made = codes.build(matrix)
    basis, steps = codes.fit_small(matrix)
    small = codes.Small.of(basis, steps, codes.small_of(matrix, basis, steps))
    rows = len(matrix)
    out: dict[str, Any] = {}
    for k, n in CASES:
        keep = max(8 * n, rows // 16)
        found: dict[str, list[float]] = {"float codes": [], "int8": [], "int8 coarse first": []}
        for q in queries:
            exact = set(np.argsort(-(matrix @ q))[:k].tolist())
            found["float codes"].append(held(exact, codes.candidates(codes.estimates(made, q), n)))
            found["int8"].append(held(exact, codes.candidates(codes.small_estimates(small, q), n)))
            coarse = codes.small_estimates(small, q, axes=codes.COARSE_AXES)
            first = codes.candidates(coarse, keep)
            fine = coarse[first] + codes.small_estimates(small, q, at=first, skip=codes.COARSE_AXES)
            found["int8 coarse first"].append(held(exact, first[codes.candidates(fine, n)]))
        out[f"k{k}_candidates{n}_coarse{keep}"] = {
            name: {"mean": round(float(np.mean(v)), 4), "worst": round(min(v), 3)} for name, v in found.items()
        }
    report(ns.name, {"rows": rows, "queries": len(queries), "held": out})


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", required=True, help="an index folder holding cache.db")
    parser.add_argument("--vault", required=True, help="the SciFact vault written by bench_quality")
    parser.add_argument("--data", help="folder holding scifact/ (default: $VAULTGATE_TEST_DATA)")
    parser.add_argument("--name", default="bench_vector_codes", help="result name (tests/bench/results/NAME.json)")
    main(parser.parse_args())
