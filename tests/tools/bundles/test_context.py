"""context_for_query: passages for a question under an exact budget, deduplicated, merged, cited,
in reading order; what was left out and why; a note the caller may not read does not exist."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.bundles.context import ByteMeasure, TokenMeasure
from tests.conftest import started
from tests.semantic.helpers import VAULT, halves_meet, ranking_inputs, semantic

CARE = "\n\n".join(
    f"## Step {i}\nKitten care step {i}: brush the kitten's fur, check its ears and trim the claws gently "
    f"so the young cat stays healthy and calm (routine number {i})."
    for i in range(1, 9)
)
TEMPLATE = "Template footer: cats kittens pets vet litter grooming."
NOTES: dict[str, str] = {
    **VAULT,
    "Pets/Kitten care.md": "---\ntags: [animals]\n---\n# Kitten care\n\n" + CARE + "\n",
    "Pets/Dogs.md": "# Dogs\n\nA puppy needs walks twice a day.\n\n## Footer\n" + TEMPLATE + "\n",
    "Pets/Birds.md": "# Birds\n\nA parrot needs a large cage.\n\n## Footer\n" + TEMPLATE + "\n",
}
QUESTION = "how do I groom and look after a kitten?"


def _sizes(out: dict[str, Any]) -> int:
    measure = ByteMeasure() if out["unit"] == "bytes" else TokenMeasure()
    total = 0
    for p in out["passages"]:
        assert measure.size(p["text"]) == p["size"]
        total += p["size"]
    return total


@pytest.mark.covers("context_for_query", "success")
async def test_budgets_are_honoured_exactly(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as h:
        for budget in (16, 40, 77, 150, 333, 2000):
            out = await h.ok("context_for_query", query=QUESTION, max_tokens=budget)
            assert out["unit"] == "tokens" and out["budget"] == budget
            assert _sizes(out) == out["used"] <= budget and out["passages"]
        for budget in (64, 200, 999, 5000):
            out = await h.ok("context_for_query", query=QUESTION, max_bytes=budget)
            assert out["unit"] == "bytes" and _sizes(out) == out["used"] <= budget
            assert sum(len(p["text"].encode()) for p in out["passages"]) == out["used"]
        small = await h.ok("context_for_query", query=QUESTION, max_tokens=40)
        assert small["left_out_count"] > 0 and {i["reason"] for i in small["left_out"]} >= {"budget"}
        assert small["passages"][-1]["truncated"] or small["used"] < 40
        default = await h.ok("context_for_query", query=QUESTION)
        assert default["budget"] == 2000 and default["unit"] == "tokens"


@pytest.mark.covers("context_for_query", "success")
async def test_passages_are_deduplicated_merged_and_one_note_cannot_crowd_out_the_rest(
    make_vault: Callable[..., Path],
) -> None:
    async with semantic(make_vault(NOTES)) as h:
        out = await h.ok("context_for_query", query=QUESTION, max_tokens=2000, max_per_note=2)
        care = [p for p in out["passages"] if p["path"] == "Pets/Kitten care.md"]
        assert sum(len(p["chunks"]) for p in care) <= 2
        assert any(i["reason"] == "per_note_limit" and i["path"] == "Pets/Kitten care.md" for i in out["left_out"])
        assert len({p["path"] for p in out["passages"]}) >= 4  # the other notes got their place
        footers = [p for p in out["passages"] if TEMPLATE in p["text"]]
        assert len(footers) == 1
        assert any(i["reason"] == "duplicate" and i["heading"] == "Footer" for i in out["left_out"])
        # every chunk of the long note: neighbours come back merged, in note order, cited by lines
        full = await h.ok("context_for_query", query=QUESTION, max_tokens=5000, max_per_note=20, folder="Pets")
        care = [p for p in full["passages"] if p["path"] == "Pets/Kitten care.md"]
        assert len(care) == 1 and care[0]["chunks"] == sorted(care[0]["chunks"]) and len(care[0]["chunks"]) > 1
        lines = (h.root / "Pets/Kitten care.md").read_text().splitlines()
        span = care[0]["lines"]
        quoted = "\n".join(lines[span["start"] - 1 : span["end"]])
        assert care[0]["text"].splitlines()[0] in quoted and care[0]["text"].splitlines()[-1] in quoted
        assert care[0]["obsidian_url"].startswith("obsidian://open?") and "%23" in care[0]["obsidian_url"]
        assert care[0]["text"].count("routine number 1)") == 1


@pytest.mark.covers("context_for_query", "success")
async def test_reading_order_is_notes_by_rank_then_note_order(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as h:
        out = await h.ok("context_for_query", query=QUESTION, max_tokens=3000, max_per_note=4)
        keys = [(p["rank"], p["chunks"][0]) for p in out["passages"]]
        assert keys == sorted(keys)
        ranks = [p["rank"] for p in out["passages"]]
        assert ranks[0] == 1


ACL = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}


@pytest.mark.covers("context_for_query", "success")
async def test_a_note_the_caller_may_not_read_does_not_exist(make_vault: Callable[..., Path]) -> None:
    question = "my kitten chewed the sofa, when is the vet visit?"
    async with semantic(make_vault(NOTES), acl=ACL) as h:
        denied = [await h.ok("context_for_query", query=question, max_tokens=b) for b in (30, 120, 2000)]
    without = {k: v for k, v in NOTES.items() if not k.startswith("Private/")}
    async with semantic(make_vault(without)) as h:
        absent = [await h.ok("context_for_query", query=question, max_tokens=b) for b in (30, 120, 2000)]
    for a, b in zip(denied, absent, strict=True):
        assert "Private" not in str(a)
        for p in b["passages"]:  # the second harness names its vault differently
            p["obsidian_url"] = (
                a["passages"][0]["obsidian_url"].split("&file=")[0] + "&file=" + p["obsidian_url"].split("&file=")[1]
            )
        assert a["passages"] == b["passages"] and a["left_out"] == b["left_out"]
        assert a["left_out_count"] == b["left_out_count"] and a["used"] == b["used"]


@pytest.mark.covers("context_for_query", "failure")
async def test_context_for_query_failures(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as h:
        error = await h.err("context_for_query", "validation_error", query="x", max_tokens=100, max_bytes=1000)
        assert error["details"]["field"] == "max_bytes"
        await h.err("context_for_query", "validation_error", query="x", max_tokens=15)
        await h.err("context_for_query", "validation_error", query="x", max_bytes=400_001)
        await h.err("context_for_query", "validation_error", query="", max_tokens=100)
        await h.err("context_for_query", "validation_error", query="x", budget=100)
        await h.err("context_for_query", "note_not_found", query="x", folder="Nowhere")
    async with started(make_vault(NOTES)) as h:
        await h.err("context_for_query", "mode_unavailable", query="x")


@pytest.mark.covers("bundles", "success")
@pytest.mark.covers("bundles", "failure")
async def test_the_bundles_meta_tool_runs_context_for_query(make_vault: Callable[..., Path]) -> None:
    overrides: dict[str, Any] = {"tool_facade": {"mode": "domain"}}
    async with semantic(make_vault(NOTES), **overrides) as h:
        out = await h.ok("bundles", operation="context_for_query", arguments={"query": QUESTION, "max_tokens": 50})
        assert out["tool"] == "context_for_query" and out["result"]["used"] <= 50
        await h.err("bundles", "validation_error", operation="read_note", arguments={"path": "Pets/Cats"})


@pytest.mark.covers("context_for_query", "success")
async def test_a_token_budget_still_fits_the_response_limit(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES), governor={"max_response_bytes": 4096}) as h:
        out = await h.ok("context_for_query", query=QUESTION, max_tokens=50_000, max_per_note=20)
        assert out["passages"] and sum(len(p["text"].encode()) for p in out["passages"]) <= 4096 * 0.2
        assert out["left_out_count"] > 0 and out["used"] == sum(p["size"] for p in out["passages"])


@pytest.mark.covers("context_for_query", "success")
async def test_secrets_are_redacted_or_their_notes_left_out(make_vault: Callable[..., Path]) -> None:
    from tests.semantic.test_sensitive_leaks import LEAKY, assert_clean

    questions = ["backup server deploy key", "company card number for hosting", "where do the backups go"]
    async with semantic(make_vault(LEAKY)) as h:  # the default mode: redact
        outs = [await h.ok("context_for_query", query=q, max_tokens=b) for q in questions for b in (40, 2000)]
        for out in outs:
            assert_clean(out)
        ops = [p for out in outs for p in out["passages"] if p["path"].startswith("Ops/")]
        assert ops and all(p["sensitive"] for p in ops) and any("[REDACTED:" in p["text"] for p in ops)
        assert {p["path"] for p in ops} == {"Ops/Servers.md", "Ops/Card.md"}
        # cited by lines, unless nothing of the passage is left to find in the file
        assert all((p["lines"] is None) == (p["text"] == "[REDACTED:private_key]") for p in ops)
    async with semantic(make_vault(LEAKY), sensitive={"mode": "exclude"}) as h:
        for q in questions:
            out = await h.ok("context_for_query", query=q, max_tokens=2000)
            assert_clean(out)
            assert "Ops/" not in str(out)


async def test_the_hybrid_halves_run_at_once_and_rank_as_on_one_connection(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The BM25 half and the vector half run side by side on two readers (each waits here, bounded,
    until the other has started: one after the other, the first would wait in vain), and the
    passages' notes rank as both halves fused on one connection rank them."""

    from service.retrieval import hybrid
    from service.semantic import search as sem
    from service.tools.bundles.context import DEPTH

    async with semantic(make_vault(NOTES)) as h:
        engine, vid, use, vector, keep = await ranking_inputs(h, QUESTION)

        def oracle(conn: Any) -> list[str]:
            texts = sem.text_candidates(conn, vid, QUESTION, keep, DEPTH)
            chunks = sem.nearest(engine, conn, vid, vector, DEPTH, keep, use.model, text=False)
            paths = {t.note_id: t.path for t in texts.hits} | {c.row.note_id: c.row.path for c in chunks}
            fused = hybrid.fuse(
                [hybrid.TextCandidate(t.note_id, t.score) for t in texts.hits],
                [hybrid.ChunkCandidate(c.row.note_id, c.row.chunk_id, c.similarity) for c in chunks],
                text_complete=texts.complete,
            )
            return [paths[f.note_id] for f in fused]

        ranked = await h.app.services.db.run_read(oracle)
        alone = await h.ok("context_for_query", query=QUESTION, max_tokens=2000)
        halves_meet(monkeypatch, "text_candidates")
        out = await h.ok("context_for_query", query=QUESTION, max_tokens=2000)
        assert out["passages"] == alone["passages"] and out["passages"]
        assert all(ranked[p["rank"] - 1] == p["path"] for p in out["passages"])
