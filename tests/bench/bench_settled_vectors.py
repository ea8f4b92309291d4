"""A settled server with the standard workload's text index and a vector for every chunk (issue
39's 100k figures: resident memory with the model unloaded, and the searches and whole-vault
queries at the client over HTTP with the SDK).

    python -m tests.bench.bench_settled_vectors [--size 100k] [--queries 60] [--samples 20] [--idle-s 90]
        [--searches-only] [--one-by-one] [--src DIR]

Prepares once, in `$VAULTGATE_BENCH_DIR/settled-vectors-N/` (kept for later runs): a copy of the
standard vault, its cold text index (a server with the embedding provider off), then the
vault's chunks made by the project's chunker (`service.semantic.store`, as the embedding job
does) and a synthetic vector for each (a random unit vector near one of 256 random centres:
the model's vectors would take hours on this machine), marked as already in the sqlite-vec table
as `bench_vector_layout_http` does, so that the embedding job finds nothing to do.

Then starts `vaultgate serve` (built-in model, `[embeddings] unload_after_s` 5 s, `[search]
query_images_idle_s` = --idle-s) and measures: the first search by meaning (the vector file
built from the index); --queries two-word queries to each of search_text, search_hybrid and
search_semantic (limit 10, each query sent once, the tools alternated) — p50 / p95 ms, and the
server's CPU time per call (its threads' schedstat before and after: less moved by the machine's
load than the time at the client); the RSS
once the model is unloaded and a heap trim has run (65 s); the whole-vault queries of
`bench_index` (list_notes, get_backlinks, query_base, Dataview TABLE … WHERE, search_text; p50
over --samples calls each); the RSS after them and settled again; the RSS once the idle images
were dropped (--idle-s), and the first query_base / Dataview call after that (the rebuild). At
each settled point also where the resident memory sits (`smaps_*`, read from /proc/PID/smaps:
anonymous against file-backed, huge pages, the largest unnamed mappings, the files by name).
`--searches-only` stops after the searches; `--one-by-one` runs the whole-vault queries in three
groups (list_notes, get_backlinks and search_text; query_base; Dataview) with the settled RSS and
smaps after each, and stops there. `--src DIR` runs the server of another tree (a `git
worktree` of an older commit) on the same prepared data, to compare two commits alternately.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import numpy as np
from mcp import Client

from tests.bench.bench_index import TEXT_ONLY, whole_vault
from tests.bench.bench_vector_layout_http import rss_status, timed
from tests.bench.common import (
    BENCH_ENV,
    WORKDIR,
    ServerProcess,
    report,
    standard_vault,
    summary_ms,
    thread_cpu_ns,
    vaultgate_argv,
    wait_ready,
)
from tests.bench.workload import SIZES
from tests.bench.workload_words import COMMON, JARGON

DIM = 384  # the built-in model's
CENTRES = 256
SETTLE = [0.0]  # set from --settle-s
SETTLE_S = 65.0  # past the model's unload (5 s) and one run of the minute's heap trim (--settle-s)


def cold_index(vault: Path, env: dict[str, str]) -> float:
    async def run() -> float:
        server = ServerProcess(vaultgate_argv(vault), env=env | TEXT_ONLY)
        try:
            server.start()
            return await wait_ready(server.url, limit_s=1800)
        finally:
            server.stop()

    return asyncio.run(run())


def chunk_and_vectors(db: Path, seed: int = 9) -> dict[str, Any]:
    """Chunk every note as the embedding job does, then give each chunk a synthetic vector."""
    from service.embeddings.builtin import MODEL_NAME
    from service.embeddings.tokens import TokenCounter
    from service.semantic import store
    from service.semantic.chunker import Chunker
    from service.semantic.engine import _NoteChunker
    from service.settings.embeddings import EmbeddingSettings

    settings = EmbeddingSettings()
    chunker = _NoteChunker(Chunker(TokenCounter(), max_tokens=settings.max_tokens, overlap=settings.overlap_tokens))
    conn = sqlite3.connect(db, isolation_level=None)
    vault_id = str(conn.execute("SELECT vault_id FROM notes LIMIT 1").fetchone()[0])
    t0 = time.perf_counter()
    walked = 0
    while True:
        stale = store.stale_notes(conn, vault_id, 2000, after=walked)
        if not stale:
            break
        walked = stale[-1].note_id
        made = [(src, chunker.chunks_of(src)) for src in stale]
        conn.execute("BEGIN")
        store.write_chunks(conn, vault_id, made)
        conn.execute("COMMIT")
    chunked_s = time.perf_counter() - t0
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((CENTRES, DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    t0 = time.perf_counter()
    while True:
        rows = store.pending(conn, vault_id, MODEL_NAME, 50_000)
        if not rows:
            break
        vectors = centres[rng.integers(0, CENTRES, len(rows))] + 0.05 * rng.standard_normal((len(rows), DIM)).astype(
            np.float32
        )
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        conn.execute("BEGIN")
        store.store_vectors(conn, MODEL_NAME, [r[1] for r in rows], vectors.astype(np.float32))
        conn.execute("COMMIT")
    conn.execute("UPDATE chunks SET vec_model = ?", (MODEL_NAME,))  # not copied to sqlite-vec (see above)
    conn.execute("DELETE FROM chunk_changes")
    chunks = int(conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
    conn.close()
    return {"chunks": chunks, "chunked_s": round(chunked_s, 1), "vectors_s": round(time.perf_counter() - t0, 1)}


def queries(n: int, seed: int = 39) -> list[str]:
    rng = random.Random(seed)
    words = COMMON + JARGON
    return [f"{rng.choice(words)} {rng.choice(words)}" for _ in range(n)]


async def settled(pid: int, seconds: float) -> dict[str, float]:
    await asyncio.sleep(seconds)
    return rss_status(pid)


def mb(kib: int) -> float:
    return round(kib / 1024, 1)


def smaps_breakdown(pid: int, top: int = 12) -> dict[str, Any]:
    """Where the resident memory sits (`/proc/PID/smaps`): anonymous against file-backed, the
    unnamed anonymous mappings by size (the heap arenas, numpy's and the vector codes' blocks),
    and the files grouped by name (shared libraries, the index's memory-mapped pages)."""
    maps: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and not head[0].endswith(":"):
            lo, hi = (int(x, 16) for x in head[0].split("-"))
            current = {"name": " ".join(head[5:]) or "[anon]", "size_kb": (hi - lo) // 1024}
            maps.append(current)
        elif head and head[0] in ("Rss:", "Anonymous:", "AnonHugePages:"):
            current[head[0][:-1]] = int(head[1])
    by_name: dict[str, list[int]] = {}
    for m in maps:
        key = m["name"] if m["name"].startswith("[") else Path(m["name"]).name
        got = by_name.setdefault(key, [0, 0, 0])
        got[0] += m.get("Rss", 0)
        got[1] += m.get("Anonymous", 0)
        got[2] += 1
    anon = sum(m.get("Anonymous", 0) for m in maps)
    rss = sum(m.get("Rss", 0) for m in maps)
    unnamed = sorted((m for m in maps if m["name"] == "[anon]"), key=lambda m: -m.get("Rss", 0))
    return {
        "rss": mb(rss),
        "anonymous": mb(anon),
        "file_backed": mb(rss - anon),
        "anon_huge_pages": mb(sum(m.get("AnonHugePages", 0) for m in maps)),
        "unnamed_anon_mappings": {"count": len(unnamed), "rss": mb(sum(m.get("Rss", 0) for m in unnamed))},
        "largest_unnamed": [[mb(m["size_kb"]), mb(m.get("Rss", 0))] for m in unnamed[:top]],
        "by_name_rss_anon_count": {
            k: [mb(v[0]), mb(v[1]), v[2]] for k, v in sorted(by_name.items(), key=lambda kv: -kv[1][0])[:top]
        },
    }


async def measure(ns: argparse.Namespace, vault: Path, env: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    asked = queries(3 * ns.queries + 10)
    if ns.src:  # the other tree's `service` first on the path, not the current folder's
        env = env | {"PYTHONSAFEPATH": "1", "PYTHONPATH": ns.src}
    server = ServerProcess(vaultgate_argv(vault), env=env)
    try:
        server.start()
        out["spawn_to_ready_s"] = round(await wait_ready(server.url, limit_s=600), 2)
        async with Client(server.url, mode="legacy", cache=None) as client:
            out["first_search_semantic_s"] = round(await timed(client, "search_semantic", asked[0]) / 1000, 2)
            for q in asked[1:10]:  # warm-up
                await timed(client, "search_hybrid", q)
            tools = ("search_text", "search_hybrid", "search_semantic")
            times: dict[str, list[float]] = {t: [] for t in tools}
            cpu: dict[str, list[float]] = {t: [] for t in tools}
            for n, q in enumerate(asked[10:]):  # each query once, the tools alternated
                tool = tools[n % 3]
                before = thread_cpu_ns(server.pid)
                times[tool].append(await timed(client, tool, q) / 1000)
                cpu[tool].append((thread_cpu_ns(server.pid) - before) / 1e9)
            out["search_ms"] = {t: summary_ms(v) for t, v in times.items()}
            out["search_server_cpu_ms"] = {t: summary_ms(v) for t, v in cpu.items()}
            out["rss_after_searches"] = rss_status(server.pid)
            if ns.searches_only:
                return out
            out["rss_settled_searches_only"] = await settled(server.pid, SETTLE[0])
            out["smaps_settled_searches_only"] = smaps_breakdown(server.pid)
            if ns.one_by_one:  # what each whole-vault query adds, settled after each
                out["settled_after_each"] = await one_by_one(client, server.pid, vault, ns.samples)
                return out
            out["whole_vault_queries"] = await whole_vault(client, vault, ns.samples)
            out["rss_after_whole_vault_queries"] = rss_status(server.pid)
            out["rss_settled_after_queries"] = await settled(server.pid, SETTLE[0])
            out["smaps_settled_after_queries"] = smaps_breakdown(server.pid)
            if ns.idle_s > 0:  # the images dropped once idle (`[search] query_images_idle_s`)
                out["rss_images_released"] = await settled(server.pid, max(0.0, ns.idle_s * 1.3 + 5 - SETTLE[0]))
                out["smaps_images_released"] = smaps_breakdown(server.pid)
                out["first_calls_after_release_ms"] = await first_calls(client)
    finally:
        server.stop()
    return out


async def one_by_one(client: Client, pid: int, vault: Path, samples: int) -> dict[str, Any]:
    """The whole-vault queries in three groups (list_notes, get_backlinks and search_text; then
    query_base, which builds the Bases snapshot; then Dataview, which builds its pages), each
    called 1 + `samples` times, with the settled RSS and smaps after each group."""
    from tests.bench.bench_bases import PROPERTY_FILTER
    from tests.bench.bench_index import most_linked
    from tests.bench.workload_words import STATUSES

    groups: dict[str, list[tuple[str, dict[str, Any]]]] = {
        "list_backlinks_text": [
            ("list_notes", {"limit": 50}),
            ("get_backlinks", {"path": most_linked(vault), "limit": 50}),
            ("search_text", {"query": "project plan", "limit": 10}),
        ],
        "query_base": [("query_base", {"yaml": PROPERTY_FILTER.replace("STATUS", STATUSES[1]), "limit": 50})],
        "dataview": [
            (
                "search_dql",
                {"query": f'TABLE status, priority WHERE status = "{STATUSES[1]}" SORT file.name', "limit": 50},
            )
        ],
    }
    out: dict[str, Any] = {}
    for name, calls in groups.items():
        for tool, args in calls:
            for _ in range(1 + samples):
                result = await client.call_tool(tool, args)
                assert not result.is_error, (tool, result)
        out[name] = {"rss": await settled(pid, SETTLE[0]), "smaps": smaps_breakdown(pid)}
    return out


async def first_calls(client: Client) -> dict[str, float]:
    from tests.bench.bench_bases import PROPERTY_FILTER
    from tests.bench.workload_words import STATUSES

    base = PROPERTY_FILTER.replace("STATUS", STATUSES[1])
    dql = f'TABLE status, priority WHERE status = "{STATUSES[1]}" SORT file.name'
    out = {}
    for name, tool, args in (
        ("query_base", "query_base", {"yaml": base, "limit": 50}),
        ("dataview_table_where", "search_dql", {"query": dql, "limit": 50}),
    ):
        t0 = time.perf_counter()
        result = await client.call_tool(tool, args)
        assert not result.is_error, (name, result)
        out[name] = round((time.perf_counter() - t0) * 1000, 1)
    return out


def main(ns: argparse.Namespace) -> None:
    notes = SIZES[ns.size] if ns.size else ns.notes
    SETTLE[0] = ns.settle_s
    folder = WORKDIR / f"settled-vectors-{notes}"
    vault, cache = folder / "vault", folder / "cache"
    env = {
        **BENCH_ENV,
        "VAULTGATE_STORAGE__CACHE_DIR": str(cache),
        "VAULTGATE_EMBEDDINGS__UNLOAD_AFTER_S": "5",
        "VAULTGATE_SEARCH__QUERY_IMAGES_IDLE_S": str(ns.idle_s),
        "OPENBLAS_NUM_THREADS": "1",
    }
    os.environ["VAULTGATE_STORAGE__CACHE_DIR"] = str(cache)  # bench_index.most_linked reads the index
    ns.src = str(Path(ns.src).resolve()) if ns.src else None
    result: dict[str, Any] = {"notes": notes, "src": ns.src or "."}
    prepared = folder / "prepared.json"
    if not prepared.exists():
        shutil.rmtree(folder, ignore_errors=True)
        source, _meta = standard_vault(notes)
        shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".vaultgate"))
        made: dict[str, Any] = {"cold_text_index_s": round(cold_index(vault, env), 1)}
        made |= chunk_and_vectors(cache / "cache.db")
        prepared.write_text(repr(made))
    result["prepared"] = prepared.read_text()
    result |= asyncio.run(measure(ns, vault, env))
    result["load_average"] = os.getloadavg()
    result["targets"] = {
        "rss_settled_model_unloaded_mb": 400,
        "search_text_p50_ms": 15,
        "search_hybrid_p50_ms": 60,
        "search_semantic_p50_ms": 50,
    }
    report(f"settled_vectors_{notes}", result)


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--size", choices=sorted(SIZES), help="a named workload size (overrides --notes)")
    parser.add_argument("--queries", type=int, default=60, help="queries per search tool")
    parser.add_argument("--samples", type=int, default=20, help="calls per whole-vault query")
    parser.add_argument("--settle-s", type=float, default=SETTLE_S, help="seconds waited before each settled RSS")
    parser.add_argument("--idle-s", type=float, default=90.0, help="[search] query_images_idle_s (0: not measured)")
    parser.add_argument("--searches-only", action="store_true", help="stop after the searches (no settled RSS)")
    parser.add_argument(
        "--one-by-one", action="store_true", help="settle after each group of whole-vault queries (RSS and smaps)"
    )
    parser.add_argument("--src", help="a tree whose server to run (default: this one's)")
    return parser.parse_args()


if __name__ == "__main__":
    main(parse())
