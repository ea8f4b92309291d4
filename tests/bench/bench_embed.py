"""The builtin model and the vector scan in process: what one embedding batch and one scan cost.

Run: `python -m tests.bench.bench_embed [--notes 300] [--sample 240] [--threads 1] [--rounds 2]
[--scan-rows 60000]`. Not part of the test run; prints one JSON object (tests/bench/common.py).

- embedding: `--sample` chunk texts drawn (seed 1) from the engine's chunks of the standard
  workload, embedded in length-sorted batches of 16 as the job does (one model call per text),
  with the model file as shipped (float32 products) and with the derived graph (fused
  operators, int8 products), alternating A B A B; chunks/s, CPU milliseconds per chunk (the
  figure that survives a loaded machine), model tokens/s (special tokens included) and the
  cosine between the two models' vectors of each text;
- scan: one query against `--scan-rows` random unit vectors of 384 dimensions (the 10,000-note
  workload has about 60,000 chunks): the exact scan's matrix-vector product through `@`
  (multi-threaded BLAS) and through `einsum` (what `vectors.knn_scan` uses), and sqlite-vec's
  `vec0` k-nearest search (k 400, as a hybrid search asks), medians of 9 calls each.
The machine load (1-minute load average) is recorded beside every figure.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from service.embeddings import builtin
from service.embeddings.graph import SESSION_OFF
from service.embeddings.tokens import MAX_MODEL_TOKENS, TokenCounter, package_file
from service.markdown.frontmatter import split
from service.markdown.parse import note_title
from service.semantic.chunker import Chunker
from tests.bench.common import report, standard_vault


def load() -> float:
    return round(os.getloadavg()[0], 1)


def chunk_texts(notes: int, sample: int) -> tuple[list[str], int]:
    root, _ = standard_vault(notes)
    tokens = TokenCounter()
    chunker = Chunker(tokens)
    texts = []
    for path in sorted(root.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        body = text[split(text).body_start :]
        texts += [c.embed_text for c in chunker.chunks(note_title(str(path.relative_to(root))), body)]
    random.Random(1).shuffle(texts)
    chosen = sorted(texts[:sample], key=len)
    model_tokens = sum(min(MAX_MODEL_TOKENS, tokens.count(t) + 2) for t in chosen)
    return chosen, model_tokens


def use_model(path: str, threads: int) -> None:
    """Point the builtin embedder at `path` (a fresh session; the derived file or the shipped one)."""
    import onnxruntime as ort  # type: ignore[import-untyped,unused-ignore]

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.enable_cpu_mem_arena = False
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 3
    session = ort.InferenceSession(
        path, sess_options=opts, providers=["CPUExecutionProvider"], disabled_optimizers=SESSION_OFF
    )
    builtin._sessions[threads] = (session, path)


def embed_all(texts: list[str], threads: int) -> tuple[float, float, np.ndarray[Any, Any]]:
    """Wall seconds, process CPU seconds (every thread) and the vectors."""
    started, cpu = time.perf_counter(), time.process_time()
    rows = [builtin.encode(texts[i : i + 16], threads) for i in range(0, len(texts), 16)]
    return time.perf_counter() - started, time.process_time() - cpu, np.vstack(rows)


def embedding(ns: argparse.Namespace) -> dict[str, Any]:
    texts, model_tokens = chunk_texts(ns.notes, ns.sample)
    shipped = str(package_file(builtin.MODEL_PACKAGE, builtin.MODEL_FILE, builtin.MODEL_SHA256))
    derived, kind = builtin.model_path()
    if derived == shipped:
        raise SystemExit(f"the derived int8 model could not be made ({kind}); see the log")
    runs: dict[str, list[dict[str, float]]] = {"shipped": [], "dynamic_int8": []}
    vectors: dict[str, np.ndarray[Any, Any]] = {}
    for _ in range(ns.rounds):
        for name, path in (("shipped", shipped), ("dynamic_int8", derived)):
            use_model(path, ns.threads)
            builtin.encode(["warm up"], ns.threads)
            seconds, cpu, vectors[name] = embed_all(texts, ns.threads)
            runs[name].append(
                {
                    "seconds": round(seconds, 2),
                    "cpu_ms_per_chunk": round(cpu / len(texts) * 1000, 2),
                    "chunks_per_s": round(len(texts) / seconds, 1),
                    "tokens_per_s": round(model_tokens / seconds),
                    "load": load(),
                }
            )
    cos = (vectors["shipped"] * vectors["dynamic_int8"]).sum(axis=1)
    median = {n: statistics.median(r["cpu_ms_per_chunk"] for r in rs) for n, rs in runs.items()}
    return {
        "texts": len(texts),
        "model_tokens": model_tokens,
        "threads": ns.threads,
        "runs": runs,
        "cpu_per_chunk_ratio_median": round(median["dynamic_int8"] / median["shipped"], 2),
        "cosine_shipped_vs_int8": {"min": round(float(cos.min()), 4), "mean": round(float(cos.mean()), 4)},
    }


def median_ms(call: Callable[[], object], times: int = 9) -> float:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(samples), 2)


def scan(rows: int) -> dict[str, Any]:
    import sqlite_vec

    from service.storage.db import driver

    sqlite3 = driver()
    rng = np.random.default_rng(1)
    matrix = rng.standard_normal((rows, 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    query = matrix[7] + np.float32(0.05)
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.execute(
        "CREATE VIRTUAL TABLE v USING vec0(chunk_id INTEGER PRIMARY KEY, vault_id TEXT PARTITION KEY, "
        "embedding float[384] distance_metric=cosine)"
    )
    conn.executemany("INSERT INTO v VALUES (?, 'a', ?)", [(i + 1, matrix[i].tobytes()) for i in range(rows)])
    sql = "SELECT chunk_id, distance FROM v WHERE embedding MATCH ? AND k = 400 AND vault_id = 'a' ORDER BY distance"
    return {
        "rows": rows,
        "blas_matmul_ms": median_ms(lambda: matrix @ query),
        "einsum_ms": median_ms(lambda: np.einsum("ij,j->i", matrix, query)),
        "vec0_k400_ms": median_ms(lambda: conn.execute(sql, (query.tobytes(),)).fetchall()),
        "load": load(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=300)
    parser.add_argument("--sample", type=int, default=240)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--scan-rows", type=int, default=60_000)
    ns = parser.parse_args()
    result = {"load_at_start": load(), "embedding": embedding(ns)}
    result["scan"] = [scan(rows) for rows in sorted({4_000, ns.scan_rows})]
    report("bench_embed", result)


if __name__ == "__main__":
    main()
