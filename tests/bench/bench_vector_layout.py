"""The vector layouts of the scan at a given number of chunks, with synthetic vectors: every
vector in memory (float32 matrix + float first-pass codes, `[embeddings] vectors_on_disk = false`)
against the vector file (`service/semantic/vecfile.py`: int8 codes in memory, float32 rows in a
memory-mapped file rescored exactly).

Run (599,240 chunks: the 10k workload's 59,924 chunks x 10, i.e. a 100,000-note vault):

    python -m tests.bench.bench_vector_layout [--chunks 599240] [--rounds 3] [--dir DIR]

It writes DIR/cache.db once (kept for later runs: ~1 GB at 600k chunks) with vectors shaped like
a text model's (a shared offset, most variance on 40 topic axes, noise; 384 dimensions, seed 5),
and the vector file once. Then each round starts one child process per layout, in alternating
order, which reads the layout (in memory: from the index; the file: from its checkpoint, as a
restarted server does), answers `--queries` queries at k = 64 (search_semantic's first ask) and
k = 400 (search_hybrid's), and reports its resident memory after a garbage collection and
`malloc_trim` (VmRSS, its anonymous and file-backed parts, peak) less what it held before reading
the vectors. One more child compares the file layout's answers with the exact scan of every
vector (agreement of the top 10 / 64 / 400). Medians over the rounds; prints one JSON object.

These are synthetic vectors: latency and memory scale with the count and dimension alone, but
agreement depends on how the vectors are spread, so SciFact with the real model is the quality
check (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import json
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from service.semantic import vectors
from service.storage.migrate import load_migrations
from tests.bench.common import report

DIM = 384
SEED = 5
FIRST_PASS_ROWS = 20_000
Array = np.ndarray[Any, Any]


def _model(rng: np.random.Generator) -> tuple[Array, Array]:
    return rng.standard_normal((40, DIM)), rng.standard_normal(DIM)


def _rows(rng: np.random.Generator, topics: Array, offset: Array, n: int) -> Array:
    rows = offset + rng.standard_normal((n, 40)) @ topics + 0.5 * rng.standard_normal((n, DIM))
    out: Array = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
    return out


def make_index(path: Path, chunks: int) -> float:
    """DIR/cache.db with `chunks` synthetic vectors (the tables the scan reads); seconds taken."""
    t0 = time.perf_counter()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE chunks (id INTEGER PRIMARY KEY, vault_id TEXT, hash TEXT)")
    conn.execute("CREATE TABLE embeddings (model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))")
    rng = np.random.default_rng(SEED)
    topics, offset = _model(rng)
    for start in range(0, chunks, 50_000):
        block = _rows(rng, topics, offset, min(50_000, chunks - start))
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO chunks VALUES (?, 'v', ?)", [(start + n + 1, f"h{start + n}") for n in range(len(block))]
        )
        conn.executemany(
            "INSERT INTO embeddings VALUES ('m', ?, ?)", [(f"h{start + n}", r.tobytes()) for n, r in enumerate(block)]
        )
        conn.execute("COMMIT")
    conn.execute("CREATE INDEX chunks_by_vault_hash ON chunks(vault_id, hash)")
    conn.execute("CREATE INDEX embeddings_keys ON embeddings(model, hash)")
    (log,) = [m for m in load_migrations() if m.name == "chunk_changes"]  # its triggers after the bulk load
    conn.executescript(log.sql)
    conn.close()
    return time.perf_counter() - t0


def query_vectors(n: int) -> Array:
    rng = np.random.default_rng(SEED)
    topics, offset = _model(rng)
    return _rows(np.random.default_rng(SEED + 1), topics, offset, n)


def status() -> dict[str, float]:
    """VmRSS, RssAnon, RssFile, VmHWM in MB, after a collection and malloc_trim."""
    gc.collect()
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    out: dict[str, float] = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
            out[key] = round(int(value.split()[0]) / 1024, 1)
    return out


def cache_for(layout: str, folder: Path) -> vectors.ScanCache:
    if layout == "file":
        return vectors.ScanCache(directory=folder / "vectors", disk_rows=FIRST_PASS_ROWS)
    return vectors.ScanCache()


def child(layout: str, folder: Path, queries: int) -> dict[str, Any]:
    conn = sqlite3.connect(folder / "cache.db", check_same_thread=False)
    qs = query_vectors(2 * queries)
    before = status()
    cache = cache_for(layout, folder)
    t0 = time.perf_counter()
    mat = cache.matrix(conn, "v", "m")
    if mat.disk is None:
        vectors.ensure_codes(mat)  # what the embedding job's warm-up builds for the first pass
    ready_s = time.perf_counter() - t0
    times: dict[int, list[float]] = {64: [], 400: []}
    for n, q in enumerate(qs):
        k = 64 if n % 2 == 0 else 400
        t = time.perf_counter()
        vectors.scan_ranking(conn, cache, "v", "m", q, first_pass_rows=FIRST_PASS_ROWS)(k)
        times[k].append((time.perf_counter() - t) * 1000)
    after = status()
    cache.close()
    return {
        "layout": layout,
        "rows": len(mat.ids),
        "ready_s": round(ready_s, 3),
        "k64_ms": round(statistics.median(times[64]), 2),
        "k400_ms": round(statistics.median(times[400]), 2),
        "rss_mb": after["VmRSS"],
        "rss_anon_mb": after["RssAnon"],
        "rss_file_mb": after["RssFile"],
        "peak_mb": after["VmHWM"],
        "held_mb": round(after["VmRSS"] - before["VmRSS"], 1),
    }


def agreement(folder: Path, queries: int) -> dict[str, Any]:
    conn = sqlite3.connect(folder / "cache.db", check_same_thread=False)
    disk, memory = cache_for("file", folder), cache_for("memory", folder)
    shares: dict[int, list[float]] = {10: [], 64: [], 400: []}
    for q in query_vectors(queries):
        exact = vectors.scan_ranking(conn, memory, "v", "m", q, first_pass_rows=10**12)
        fast = vectors.scan_ranking(conn, disk, "v", "m", q, first_pass_rows=FIRST_PASS_ROWS)
        for k in shares:
            want = {i for i, _ in exact(k)}
            shares[k].append(len(want & {i for i, _ in fast(k)}) / len(want))
    disk.close()
    return {f"k{k}": {"mean": round(float(np.mean(v)), 4), "worst": round(min(v), 4)} for k, v in shares.items()}


def run_child(*args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "tests.bench.bench_vector_layout", *args], capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(ns: argparse.Namespace) -> None:
    folder = Path(ns.dir)
    folder.mkdir(parents=True, exist_ok=True)
    made_s = None
    if not (folder / "cache.db").exists():
        made_s = round(make_index(folder / "cache.db", ns.chunks), 1)
    common = ["--dir", str(folder), "--queries", str(ns.queries)]
    first = run_child("--child", "file", *common)  # builds the file when it is not there yet
    rounds: list[dict[str, Any]] = []
    for r in range(ns.rounds):
        order = ("memory", "file") if r % 2 == 0 else ("file", "memory")
        rounds.extend(run_child("--child", layout, *common) for layout in order)
    medians: dict[str, dict[str, float]] = {}
    for layout in ("memory", "file"):
        mine = [x for x in rounds if x["layout"] == layout]
        medians[layout] = {
            key: round(statistics.median(float(x[key]) for x in mine), 2)
            for key in ("ready_s", "k64_ms", "k400_ms", "rss_mb", "rss_anon_mb", "rss_file_mb", "peak_mb", "held_mb")
        }
    result = {
        "chunks": first["rows"],
        "dim": DIM,
        "synthetic": True,
        "index_written_s": made_s,
        "first_file_run": first,
        "medians": medians,
        "rounds": rounds,
        "agreement_file_vs_exact": json.loads(
            subprocess.run(
                [sys.executable, "-m", "tests.bench.bench_vector_layout", "--agree", *common],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        ),
    }
    report(ns.name, result)


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=599_240, help="synthetic chunk vectors (written once per DIR)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of both layouts, alternating their order")
    parser.add_argument("--queries", type=int, default=40, help="queries at each of k = 64 and k = 400")
    parser.add_argument("--dir", default="/tmp/vaultgate-bench/vector-layout", help="where the index and file go")
    parser.add_argument("--name", default="bench_vector_layout", help="result name (tests/bench/results/NAME.json)")
    parser.add_argument("--child", choices=("memory", "file"), help=argparse.SUPPRESS)
    parser.add_argument("--agree", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


if __name__ == "__main__":
    args = parse()
    if args.child:
        print(json.dumps(child(args.child, Path(args.dir), args.queries)))
    elif args.agree:
        print(json.dumps(agreement(Path(args.dir), args.queries)))
    else:
        main(args)
