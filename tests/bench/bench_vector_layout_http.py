"""search_semantic and search_hybrid at the client over HTTP with ~600,000 chunk vectors (a
100,000-note vault's count), the vector file layout (`service/semantic/vecfile.py`), and the
server's resident memory once settled with the model unloaded.

Run (after `bench_quality --datasets scifact --wait-embeddings --vault-dir V` with
`VAULTGATE_STORAGE__CACHE_DIR=C`, which leaves SciFact embedded by the built-in model):

    python -m tests.bench.bench_vector_layout_http --vault V/scifact --cache C [--chunks 599240]

It copies the vault and its index to --dir, adds synthetic chunks to the SciFact notes up to
--chunks (each vector a real SciFact chunk vector plus noise, normalised: spread like the model's;
each given to a random note; their text is a placeholder, marked as already in the sqlite-vec table
so that the embedding job does not copy them there), starts `vaultgate serve` on it, and measures:
the first search by meaning (the file built from the index), `--queries` SciFact queries to each of
search_semantic and search_hybrid (limit 10; each query sent once, alternating tools) through the
SDK client (p50 / p95 ms), the server's RSS after `[embeddings] unload_after_s` (set to 5 s) has
dropped the model, and a warm restart (spawn -> first search_semantic answered, the file restored
from its checkpoint). The text index is SciFact's 5,183 notes, not 100,000 (the text side at 100k
notes is measured on its own). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from mcp import Client

from tests.bench import quality
from tests.bench.common import BENCH_ENV, ServerProcess, report, vaultgate_argv, wait_ready


def grow(db: Path, chunks: int, seed: int = 9) -> int:
    """Add synthetic chunks (and their vectors) until the vault has `chunks`; returns how many now."""
    conn = sqlite3.connect(db, isolation_level=None)
    vault_id, model = conn.execute(
        "SELECT c.vault_id, e.model FROM chunks c JOIN embeddings e ON e.hash = c.hash"
    ).fetchone()
    real = conn.execute(
        "SELECT c.note_id, e.vector FROM chunks c JOIN embeddings e ON e.hash = c.hash AND e.model = ?", (model,)
    ).fetchall()
    have = int(conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
    notes = np.unique(np.array([r[0] for r in real]))
    base = np.stack([np.frombuffer(r[1], dtype=np.float32) for r in real])
    rng = np.random.default_rng(seed)
    n = have
    while n < chunks:
        size = min(50_000, chunks - n)
        pick = rng.integers(0, len(base), size)
        # Each to a random note: copies of one real chunk in one note would make its note the
        # only one among the nearest hundreds, which no vault has (and every search go deeper).
        owners = rng.choice(notes, size)
        rows = base[pick] + 0.04 * rng.standard_normal((size, base.shape[1])).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO chunks(vault_id, note_id, position, heading, heading_path, text, embed_text, hash, tokens, "
            "vec_model) VALUES (?,?,?,NULL,'[]','synthetic chunk','synthetic chunk',?,2,?)",
            [(vault_id, int(owner), 1000 + n + i, f"syn{n + i}", model) for i, owner in enumerate(owners.tolist())],
        )
        conn.executemany(
            "INSERT INTO embeddings(model, hash, vector) VALUES (?,?,?)",
            [(model, f"syn{n + i}", r.astype(np.float32).tobytes()) for i, r in enumerate(rows)],
        )
        conn.execute("COMMIT")
        n += size
    conn.execute("DELETE FROM chunk_changes")
    conn.close()
    return n


def rss_status(pid: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
            out[key] = round(int(value.split()[0]) / 1024, 1)
    return out


async def timed(client: Client, tool: str, query: str) -> float:
    t = time.perf_counter()
    result = await client.call_tool(tool, {"query": query, "limit": 10})
    if result.is_error:
        raise RuntimeError(f"{tool}: {result.content}")
    return (time.perf_counter() - t) * 1000


def p(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 2)


async def measure(ns: argparse.Namespace, vault: Path, cache: Path, queries: list[str]) -> dict[str, Any]:
    env = {
        **BENCH_ENV,
        "VAULTGATE_STORAGE__CACHE_DIR": str(cache),
        "VAULTGATE_EMBEDDINGS__UNLOAD_AFTER_S": "5",
        "OPENBLAS_NUM_THREADS": "1",
    }
    out: dict[str, Any] = {}
    server = ServerProcess(vaultgate_argv(vault), env=env)
    try:
        server.start()
        await wait_ready(server.url)
        async with Client(server.url, mode="legacy", cache=None) as client:
            out["first_search_s"] = round(await timed(client, "search_semantic", queries[0]) / 1000, 2)
            for q in queries[:10]:  # warm-up
                await timed(client, "search_hybrid", q)
            times: dict[str, list[float]] = {"search_semantic": [], "search_hybrid": []}
            for n, q in enumerate(queries[10 : 10 + 2 * ns.queries]):  # each query once: no kept ranking helps
                tool = "search_semantic" if n % 2 == 0 else "search_hybrid"
                times[tool].append(await timed(client, tool, q))
        out["latency_ms"] = {t: {"p50": p(v, 50), "p95": p(v, 95), "n": len(v)} for t, v in times.items()}
        out["rss_after_queries"] = rss_status(server.pid)
        await asyncio.sleep(12)  # past unload_after_s: the model leaves memory
        out["rss_settled_model_unloaded"] = rss_status(server.pid)
    finally:
        server.stop()
    restarts = []
    checkpoint = next((cache / "vectors").glob("*.npz"), None)  # None: below the file's threshold
    written = checkpoint.stat().st_mtime_ns if checkpoint is not None else None
    for _ in range(3):
        server = ServerProcess(vaultgate_argv(vault), env=env)
        try:
            t0 = time.perf_counter()
            server.start()
            await wait_ready(server.url)
            async with Client(server.url, mode="legacy", cache=None) as client:
                await timed(client, "search_semantic", queries[1])
            restarts.append(time.perf_counter() - t0)
            out.setdefault("rss_after_restart_search", rss_status(server.pid))
        finally:
            server.stop()
    if checkpoint is not None:
        out["restart_rebuilt_the_file"] = checkpoint.stat().st_mtime_ns != written
    out["restart_to_first_semantic_s"] = [round(x, 2) for x in restarts]
    out["restart_median_s"] = round(statistics.median(restarts), 2)
    return out


def main(ns: argparse.Namespace) -> None:
    folder = Path(ns.dir)
    vault, cache = folder / "vault", folder / "cache"
    made = None
    if not (cache / "cache.db").exists():
        t0 = time.perf_counter()
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(Path(ns.vault), vault)
        shutil.copytree(Path(ns.cache), cache, ignore=shutil.ignore_patterns("vectors"))
        grow(cache / "cache.db", ns.chunks)
        made = round(time.perf_counter() - t0, 1)
    data_root = Path(ns.data or os.environ.get("VAULTGATE_TEST_DATA", ""))
    queries = [q.text for q in quality.scifact(data_root, vault).queries]
    result = asyncio.run(measure(ns, vault, cache, queries))
    conn = sqlite3.connect(cache / "cache.db")
    result["chunks"] = int(conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
    conn.close()
    result["index_grown_s"] = made
    report(ns.name, result)


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--vault", required=True, help="the SciFact vault bench_quality wrote (--vault-dir V: V/scifact)"
    )
    parser.add_argument("--cache", required=True, help="its embedded index folder (VAULTGATE_STORAGE__CACHE_DIR)")
    parser.add_argument("--chunks", type=int, default=599_240, help="chunk vectors in all (synthetic ones added)")
    parser.add_argument("--queries", type=int, default=100, help="SciFact queries per tool")
    parser.add_argument("--data", help="folder holding scifact/ (default: $VAULTGATE_TEST_DATA)")
    parser.add_argument("--dir", default="/tmp/vaultgate-bench/vector-layout-http", help="where the copies go")
    parser.add_argument("--name", default="bench_vector_layout_http", help="result name")
    return parser.parse_args()


if __name__ == "__main__":
    main(parse())
