"""Search snippets on the standard workload: FTS5's `snippet()` over whole notes against
`text.snippets`, which quotes notes over `windows.LONG_NOTE` bytes from a window (issue 19).

Run: `python -m tests.bench.bench_snippets [--notes 10000] [--rounds 5] [--queries 200]`. Builds
(once, kept under the bench folder) the index of a copy of the standard workload in this process,
then opens its `cache.db` and, for each query, takes the first page (10 hits, as `search_text`
answers: the strict pass, the relaxed one when it finds fewer) and makes its snippets both ways,
alternating per query, `rounds` times. Queries: the workload's 50 and `--queries` random pairs
of its words (what `bench_mixed`'s agents search for). Reported per query set: the thread CPU
per page (p50 / mean / p95 of each query's median, ms) both ways and their ratios; for the notes
over the threshold, how many snippets are the same text and whether the window ever highlights
fewer distinct words than the whole note's snippet. Prints one JSON object (tests/bench/common.py).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any

from service.retrieval import text, windows
from service.retrieval.query import parse_query
from tests.bench.common import WORKDIR, percentile, report, standard_vault

WHOLE = (
    f"SELECT rowid, snippet(fts_words, -1, '{text._OPEN}', '{text._CLOSE}', '…', {text.SNIPPET_TOKENS})"
    " FROM fts_words WHERE fts_words MATCH ? AND rowid IN ({marks})"
)


def whole(conn: sqlite3.Connection, match: str, ids: list[int]) -> dict[int, text.Snippet]:
    """The snippets as main made them before windows: `snippet()` over every whole note."""
    sql = WHOLE.format(marks=",".join("?" * len(ids)))
    return {int(r): text.split_marks(s or "") for r, s in conn.execute(sql, [match, *ids])}


async def build(notes: int) -> Path:
    from tests.conftest import started

    source, _ = standard_vault(notes)
    vault = WORKDIR / f"snippets-{notes}" / "vault"
    if not vault.exists():
        shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".vaultgate"))
    async with started(vault, storage={"cache_dir": str(vault.parent / "cache")}) as vg:
        await vg.indexed(1800)
    return vault.parent / "cache" / "cache.db"


def pages(conn: sqlite3.Connection, queries: list[str]) -> list[tuple[str, list[int]]]:
    vault_id = conn.execute("SELECT vault_id FROM notes LIMIT 1").fetchone()[0]
    out = []
    for q in queries:
        p = parse_query(q)
        hits, _, answered = text.two_pass_page(
            conn, vault_id, p.match, p.relaxed, [], "relevance", lambda _: True, 0, 10
        )
        if hits:
            out.append((p.relaxed if answered == "any" and p.relaxed else p.match, [h.note_id for h in hits]))
    return out


def distinct(s: text.Snippet) -> int:
    return len({s.text[a:b].lower() for a, b in s.highlights})


def measure(conn: sqlite3.Connection, work: list[tuple[str, list[int]]], rounds: int) -> dict[str, Any]:
    old: list[list[float]] = [[] for _ in work]
    new: list[list[float]] = [[] for _ in work]
    for _ in range(rounds):
        for i, (match, ids) in enumerate(work):
            t0 = time.thread_time()
            whole(conn, match, ids)
            t1 = time.thread_time()
            text.snippets(conn, match, ids)
            t2 = time.thread_time()
            old[i].append(t1 - t0)
            new[i].append(t2 - t1)
    a = [statistics.median(v) * 1000 for v in old]
    b = [statistics.median(v) * 1000 for v in new]
    long_ids = {r[0] for r in conn.execute("SELECT id FROM notes WHERE size > ?", (windows.LONG_NOTE,))}
    same = differ = fewer = 0
    for match, ids in work:
        before, after = whole(conn, match, ids), text.snippets(conn, match, ids)
        for nid in ids:
            if nid in long_ids and nid in before:
                same += before[nid] == after[nid]
                differ += before[nid] != after[nid]
                fewer += distinct(after[nid]) < distinct(before[nid])
    figures: dict[str, Any] = {"pages": len(work)}
    for name, values in (("whole_notes", a), ("windows", b)):
        figures[name] = {
            "cpu_p50_ms": round(statistics.median(values), 3),
            "cpu_mean_ms": round(statistics.mean(values), 3),
            "cpu_p95_ms": round(percentile(values, 95), 3),
        }
    for key in ("cpu_p50_ms", "cpu_mean_ms", "cpu_p95_ms"):
        figures[f"ratio_{key}"] = round(figures["windows"][key] / max(figures["whole_notes"][key], 1e-9), 3)
    figures["long_note_snippets"] = {"same_text": same, "other_passage": differ, "fewer_distinct_words": fewer}
    return figures


def main(notes: int, rounds: int, pairs: int) -> None:
    db = asyncio.run(build(notes))
    _, meta = standard_vault(notes)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    standard = [q["q"] for q in meta["queries"]]
    words = [q.split()[0] for q in standard]
    rng = random.Random(5)
    mixed = [" ".join(rng.sample(words, 2)) for _ in range(pairs)]
    result: dict[str, Any] = {"notes": notes, "rounds": rounds, "long_note_bytes": windows.LONG_NOTE}
    result["standard_queries"] = measure(conn, pages(conn, standard), rounds)
    result["word_pairs"] = measure(conn, pages(conn, mixed), rounds)
    report("bench_snippets", result)


if __name__ == "__main__":  # worker processes of the index's bulk load import this module again
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--queries", type=int, default=200)
    ns = parser.parse_args()
    main(ns.notes, ns.rounds, ns.queries)
