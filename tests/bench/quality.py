"""Retrieval-quality data sets and metrics for the quality benchmark (tests/bench/bench_quality.py).

Two data sets, both found under the `VAULTGATE_TEST_DATA` folder (docs/testing.md):
- `obsidian-help`: the real Obsidian Help vault (`vaults/obsidian-help-en`) and the questions in
  `tests/bench/data/obsidian_help_questions.json` (a natural-language question and the
  vault-relative path(s) of the note(s) that answer it). Every expected note is relevant with
  gain 1.
- `scifact`: BEIR SciFact (`scifact/corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`) written as
  a vault: one note per document, `docs/<doc id>.md`, holding `# <title>` and the abstract, so
  the title is the note's title (its first H1) and the path gives the document id back.

Metrics (standard definitions, computed here): Recall@k = relevant documents in the top k over
all relevant documents of the query; nDCG@k with gain = the qrels grade and discount
1/log2(rank + 1), normalised by the ideal ordering. Both are averaged over the queries (a query
with no result scores 0).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

QUESTIONS = Path(__file__).resolve().parent / "data" / "obsidian_help_questions.json"
DOCS_FOLDER = "docs"


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    relevant: Mapping[str, int]  # vault-relative note path -> gain


@dataclass(frozen=True)
class DataSet:
    name: str
    vault: Path  # the folder to serve (copied before serving when `copy` is set)
    queries: list[Query]
    copy: bool  # True: a real vault that must be copied into a temp folder before serving


def obsidian_help(data_root: Path, questions: Path = QUESTIONS) -> DataSet:
    vault = data_root / "vaults" / "obsidian-help-en"
    if not vault.is_dir():
        raise FileNotFoundError(f"{vault} not found")
    items = json.loads(questions.read_text(encoding="utf-8"))
    queries = []
    for n, item in enumerate(items):
        for rel in item["expected"]:
            if not (vault / rel).is_file():
                raise FileNotFoundError(f"question {n}: expected note {rel} is not in {vault}")
        queries.append(Query(str(n), item["question"], {rel: 1 for rel in item["expected"]}))
    return DataSet("obsidian-help", vault, queries, copy=True)


def note_path(doc_id: str) -> str:
    return f"{DOCS_FOLDER}/{doc_id}.md"


def scifact_subset(data_root: Path, size: int, split: str = "test", seed: int = 0) -> set[str]:
    """Document ids of a smaller SciFact corpus: every document judged relevant in `split`, plus
    documents drawn at random (fixed seed) up to `size` in all. Figures on it compare tools with
    each other, not with published full-corpus figures (fewer distractors: higher scores)."""
    import random

    root = data_root / "scifact"
    with (root / "qrels" / f"{split}.tsv").open(encoding="utf-8") as fh:
        judged = {row["corpus-id"] for row in csv.DictReader(fh, delimiter="\t") if int(row["score"]) > 0}
    with (root / "corpus.jsonl").open(encoding="utf-8") as lines:
        others = sorted(str(json.loads(line)["_id"]) for line in lines)
    others = [d for d in others if d not in judged]
    random.Random(seed).shuffle(others)
    return judged | set(others[: max(0, size - len(judged))])


def write_scifact_vault(data_root: Path, target: Path, only: set[str] | None = None) -> int:
    """Write the SciFact corpus (or the documents `only`) into `target` as notes; returns the number of notes."""
    corpus = data_root / "scifact" / "corpus.jsonl"
    folder = target / DOCS_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            doc = json.loads(line)
            doc_id = str(doc["_id"])
            if not doc_id.isalnum():  # BEIR ids are digits; anything else would not be a safe file name
                raise ValueError(f"unexpected SciFact id {doc_id!r}")
            if only is not None and doc_id not in only:
                continue
            title = " ".join(str(doc.get("title", "")).split())
            body = str(doc.get("text", "")).strip()
            (folder / f"{doc_id}.md").write_text(f"# {title}\n\n{body}\n" if title else f"{body}\n", encoding="utf-8")
            count += 1
    return count


def scifact(data_root: Path, vault: Path, split: str = "test") -> DataSet:
    """SciFact queries that have judgements in `split`, against the vault written by `write_scifact_vault`."""
    root = data_root / "scifact"
    qrels: dict[str, dict[str, int]] = {}
    with (root / "qrels" / f"{split}.tsv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            grade = int(row["score"])
            if grade > 0:
                qrels.setdefault(row["query-id"], {})[note_path(row["corpus-id"])] = grade
    texts: dict[str, str] = {}
    with (root / "queries.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            q = json.loads(line)
            texts[str(q["_id"])] = q["text"]
    queries = [Query(qid, texts[qid], rel) for qid, rel in sorted(qrels.items(), key=lambda kv: int(kv[0]))]
    return DataSet("scifact", vault, queries, copy=False)


def recall_at(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    if not relevant:
        return 0.0
    return sum(1 for path in ranked[:k] if relevant.get(path, 0) > 0) / len(relevant)


def ndcg_at(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    dcg = sum(relevant.get(path, 0) / math.log2(rank + 2) for rank, path in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def dedupe(paths: Iterable[str]) -> list[str]:
    """Result paths in first-seen order (a tool returning chunks may name a note twice)."""
    seen: set[str] = set()
    out = []
    for path in paths:
        if path not in seen:
            seen.add(path)
            out.append(path)
    return out


def score(runs: Sequence[tuple[Query, Sequence[str]]], ks: Sequence[int] = (5, 10, 100)) -> dict[str, float]:
    """Mean nDCG@10 and Recall@k over (query, ranked paths) pairs."""
    n = len(runs) or 1
    out = {"ndcg@10": round(sum(ndcg_at(r, q.relevant, 10) for q, r in runs) / n, 4)}
    for k in ks:
        out[f"recall@{k}"] = round(sum(recall_at(r, q.relevant, k) for q, r in runs) / n, 4)
    return out
