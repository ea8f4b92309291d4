"""The retrieval-quality benchmark's parts (tests/bench/quality.py): the metrics against worked
examples, the SciFact-as-a-vault writer on a small corpus, and the Obsidian Help question set
(well formed; with VAULTGATE_TEST_DATA, every expected note exists)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.bench import quality
from tests.real_vaults import VAULTS, needs

HELP = VAULTS / "obsidian-help-en"


def test_recall_and_ndcg_match_worked_examples() -> None:
    relevant = {"a": 1, "b": 1}
    assert quality.recall_at(["x", "a", "y", "b"], relevant, 2) == 0.5
    assert quality.recall_at(["x", "a", "y", "b"], relevant, 4) == 1.0
    assert quality.recall_at([], relevant, 5) == 0.0
    # DCG = 1/log2(3) for "a" at rank 2; ideal = 1 + 1/log2(3).
    expected = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert quality.ndcg_at(["x", "a"], relevant, 10) == pytest.approx(expected)
    assert quality.ndcg_at(["a", "b", "x"], relevant, 10) == pytest.approx(1.0)
    assert quality.ndcg_at(["x", "y"], relevant, 10) == 0.0
    graded = {"a": 2, "b": 1}
    assert quality.ndcg_at(["b", "a"], graded, 10) < quality.ndcg_at(["a", "b"], graded, 10) == pytest.approx(1.0)
    assert quality.ndcg_at(["x"] * 10 + ["a"], relevant, 10) == 0.0  # beyond the cut-off


def test_score_averages_over_queries_and_dedupe_keeps_first_seen_order() -> None:
    q1 = quality.Query("1", "one", {"a": 1})
    q2 = quality.Query("2", "two", {"b": 1})
    out = quality.score([(q1, ["a"]), (q2, ["x"])])
    assert out["recall@5"] == 0.5 and out["ndcg@10"] == 0.5
    assert quality.dedupe(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]


def test_scifact_is_written_as_one_note_per_document(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "scifact" / "qrels").mkdir(parents=True)
    docs = [{"_id": "11", "title": "Cells  divide", "text": "Mitosis."}, {"_id": "12", "title": "", "text": "Body."}]
    (data / "scifact" / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (data / "scifact" / "queries.jsonl").write_text(json.dumps({"_id": "3", "text": "do cells divide?"}) + "\n")
    (data / "scifact" / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n3\t11\t1\n")
    vault = tmp_path / "vault"
    assert quality.write_scifact_vault(data, vault) == 2
    assert (vault / "docs" / "11.md").read_text() == "# Cells divide\n\nMitosis.\n"
    assert (vault / "docs" / "12.md").read_text() == "Body.\n"
    ds = quality.scifact(data, vault)
    assert [(q.text, dict(q.relevant)) for q in ds.queries] == [("do cells divide?", {"docs/11.md": 1})]
    (data / "scifact" / "corpus.jsonl").write_text(json.dumps({"_id": "../x", "title": "t", "text": "b"}) + "\n")
    with pytest.raises(ValueError):
        quality.write_scifact_vault(data, tmp_path / "other")


def test_question_set_is_well_formed() -> None:
    items = json.loads(quality.QUESTIONS.read_text(encoding="utf-8"))
    assert len(items) >= 40
    assert len({i["question"].lower() for i in items}) == len(items)
    for item in items:
        assert set(item) == {"question", "expected"}
        assert len(item["question"].split()) >= 4 and item["expected"]
        assert all(p.endswith(".md") and not p.startswith("/") for p in item["expected"])


@needs(HELP)
def test_every_expected_note_is_in_the_help_vault() -> None:
    data = quality.obsidian_help(HELP.parent.parent)
    assert len(data.queries) >= 40
    assert all((HELP / rel).is_file() for q in data.queries for rel in q.relevant)
