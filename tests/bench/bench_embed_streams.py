"""The builtin model's document path in process: one text on two intra-op threads against two
texts side by side on single-threaded calls (what `BuiltinEmbedder.embed_documents` does now).

Run: `python -m tests.bench.bench_embed_streams [--notes 10000] [--sample 2000] [--rounds 2]`.
Not part of the test run; prints one JSON object (tests/bench/common.py).

`--sample` chunk texts drawn (seed 1) from the engine's chunks of the standard workload, sorted by
length and cut into batches of 16 as the embedding job does, embedded both ways alternating A B A B
in one process:
- `one_text_two_threads` (the path before): `builtin.encode` per batch, one model call per text on
  a session of two intra-op threads;
- `two_texts_one_thread` (the path now): `BuiltinEmbedder(threads=2).embed_documents`, two batches
  in flight as the job keeps them.
Reported per run: wall seconds, chunks/s, CPU milliseconds per chunk of the whole process (the
figure that survives a loaded machine) and the 1-minute load average; the cosine between the two
paths' vectors of each text (the same calls one text at a time: expected 1.0 to float rounding).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections import deque
from typing import Any

import numpy as np

from service.embeddings import builtin
from tests.bench.bench_embed import chunk_texts, load
from tests.bench.common import report

BATCH = 16


def before(texts: list[str]) -> np.ndarray[Any, Any]:
    return np.vstack([builtin.encode(texts[i : i + BATCH], 2) for i in range(0, len(texts), BATCH)])


async def now(texts: list[str]) -> np.ndarray[Any, Any]:
    embedder = builtin.BuiltinEmbedder(threads=2, batch_size=BATCH)
    parts = [texts[i : i + BATCH] for i in range(0, len(texts), BATCH)]
    inflight: deque[asyncio.Task[Any]] = deque()
    rows = []
    for at in range(len(parts)):
        while len(inflight) < 2 and at + len(inflight) < len(parts):
            inflight.append(asyncio.ensure_future(embedder.embed_documents(parts[at + len(inflight)])))
        rows.append(await inflight.popleft())
    return np.vstack(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--sample", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=2)
    ns = parser.parse_args()
    texts, model_tokens = chunk_texts(ns.notes, ns.sample)
    paths = {"one_text_two_threads": before, "two_texts_one_thread": lambda t: asyncio.run(now(t))}
    builtin.encode(["warm up"], 2)
    builtin.encode(["warm up"], 1)
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in paths}
    vectors: dict[str, np.ndarray[Any, Any]] = {}
    for _ in range(ns.rounds):
        for name, run in paths.items():
            started, cpu = time.perf_counter(), time.process_time()
            vectors[name] = run(texts)
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            runs[name].append(
                {
                    "seconds": round(seconds, 2),
                    "chunks_per_s": round(len(texts) / seconds, 1),
                    "cpu_ms_per_chunk": round(cpu / len(texts) * 1000, 2),
                    "load": load(),
                }
            )
    cos = (vectors["one_text_two_threads"] * vectors["two_texts_one_thread"]).sum(axis=1)
    median = {n: statistics.median(r["cpu_ms_per_chunk"] for r in rs) for n, rs in runs.items()}
    report(
        "bench_embed_streams",
        {
            "texts": len(texts),
            "model_tokens": model_tokens,
            "runs": runs,
            "cpu_ms_per_chunk_median": median,
            "cpu_per_chunk_ratio_now_vs_before": round(
                median["two_texts_one_thread"] / median["one_text_two_threads"], 3
            ),
            "cosine_before_vs_now": {"min": round(float(cos.min()), 6), "mean": round(float(cos.mean()), 6)},
        },
    )


if __name__ == "__main__":
    main()
