"""Memory retrieval quality on the LoCoMo dev conversations, without an LLM.

Every dialogue turn is stored through `add_observations` (one entity per speaker, the session's
date as the observation's `date`, the turn's `dia_id` as its `source`) on a fresh vault per
conversation; every question of categories 1-4 is asked through `search_memory` with limit 10.
A turn-level hit is a returned observation whose source is an evidence `dia_id` (the audit's
`correct_evidence` where it marks a wrong citation); a session-level hit one from an evidence
session. Prints one JSON object: turn Recall@5/@10, MRR (first evidence turn within 10), session
Recall@10, per category, per conversation and overall, and the p50 of search_memory and
add_observations.

    VAULTGATE_TEST_DATA=../shared/data python -m tests.bench.bench_memory [--words-only]

`--words-only` runs with embeddings off (the ranking by words alone).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.conftest import started


def _evidence(entry: dict[str, Any]) -> dict[str, list[str]]:
    fixed = {
        a["question"]: a["correct_evidence"]
        for a in entry.get("audit_corrections", [])
        if a.get("error_type") == "WRONG_CITATION"
    }
    return {q["question"]: fixed.get(q["question"], q.get("evidence", [])) for q in entry["qa"]}


def _session(dia_id: str) -> str:
    return dia_id.split(":", 1)[0]


async def _conversation(entry: dict[str, Any], timings: dict[str, list[float]], provider: str) -> list[dict[str, Any]]:
    conv = entry["conversation"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        root.mkdir()
        async with started(root, embeddings={"provider": provider}) as vg:
            speakers = [conv["speaker_a"], conv["speaker_b"]]
            await vg.ok("create_entities", entities=[{"name": s, "entityType": "person"} for s in speakers])
            n = 1
            while f"session_{n}" in conv:
                date = conv.get(f"session_{n}_date_time", "")
                batches = [
                    {"entityName": t["speaker"], "contents": [t["text"]], "source": t["dia_id"], "date": date}
                    for t in conv[f"session_{n}"]
                    if t.get("text", "").strip()
                ]
                for i in range(0, len(batches), 100):
                    began = time.perf_counter()
                    await vg.ok("add_observations", observations=batches[i : i + 100])
                    timings["add_observations_batch"].append(time.perf_counter() - began)
                n += 1
            began = time.perf_counter()
            await vg.ok("search_memory", query="warm up", limit=1)  # reads the notes, starts their vectors
            assert vg.app.services.recall is not None
            await vg.app.services.recall.of(next(iter(vg.app.vaults.values()))).settled()
            timings["vectors_s"].append(time.perf_counter() - began)
            evidence = _evidence(entry)
            rows = []
            for qa in entry["qa"]:
                if qa["category"] not in (1, 2, 3, 4):
                    continue
                began = time.perf_counter()
                out = await vg.ok("search_memory", query=qa["question"], limit=10)
                timings["search_memory"].append(time.perf_counter() - began)
                sources = [h.get("source") or "" for h in out["items"]]
                wanted = set(evidence[qa["question"]])
                ranks = [i for i, s in enumerate(sources) if s in wanted]
                sessions = {_session(w) for w in wanted}
                rows.append(
                    {
                        "conversation": entry.get("sample_id", ""),
                        "category": qa["category"],
                        "r5": any(r < 5 for r in ranks),
                        "r10": bool(ranks),
                        "rr": 1 / (ranks[0] + 1) if ranks else 0.0,
                        "s10": any(_session(s) in sessions for s in sources),
                    }
                )
            return rows


def _figures(rows: list[dict[str, Any]]) -> dict[str, float]:
    n = len(rows) or 1
    return {
        "questions": len(rows),
        "turn_recall_at_5": round(sum(r["r5"] for r in rows) / n, 3),
        "turn_recall_at_10": round(sum(r["r10"] for r in rows) / n, 3),
        "mrr": round(sum(r["rr"] for r in rows) / n, 3),
        "session_recall_at_10": round(sum(r["s10"] for r in rows) / n, 3),
    }


async def main() -> None:
    data = os.environ.get("VAULTGATE_TEST_DATA")
    if not data:
        sys.exit("set VAULTGATE_TEST_DATA to the folder holding locomo/ (see docs/testing.md)")
    entries = json.loads((Path(data) / "locomo" / "locomo-dev.json").read_text(encoding="utf-8"))
    provider = "none" if "--words-only" in sys.argv else "builtin"
    timings: dict[str, list[float]] = {"search_memory": [], "add_observations_batch": [], "vectors_s": []}
    rows: list[dict[str, Any]] = []
    for entry in entries:
        rows += await _conversation(entry, timings, provider)
    result: dict[str, Any] = {"bench": "memory_locomo", "embeddings": provider, **_figures(rows)}
    result["by_category"] = {str(c): _figures([r for r in rows if r["category"] == c]) for c in (1, 2, 3, 4)}
    # the two dev conversations apart: a weight tuned on one is checked on the other
    convs = sorted({r["conversation"] for r in rows})
    result["by_conversation"] = {c: _figures([r for r in rows if r["conversation"] == c]) for c in convs}
    result["search_memory_p50_ms"] = round(statistics.median(timings["search_memory"]) * 1000, 2)
    result["add_observations_batch_p50_ms"] = round(statistics.median(timings["add_observations_batch"]) * 1000, 2)
    result["embedding_all_turns_s"] = round(sum(timings["vectors_s"]), 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
