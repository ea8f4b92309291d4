"""rag_search (seed 003's contract): chunks nearest a question, filters, the sensitive flag."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.semantic.helpers import VAULT, semantic

JOURNAL = {
    **VAULT,
    "Journal/2025-03-02.md": "# 2025-03-02\n\n## Mood\nFelt calm after the morning walk by the river.\n\n"
    "## Money\nI owe Sam 40 dollars for the concert tickets.\n",
    "Journal/2024-11-20.md": "# 2024-11-20\n\n## Mood\nAnxious week, started therapy sessions.\n",
}


@pytest.mark.covers("rag_search", "success")
async def test_rag_search_returns_chunks_with_their_context(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(JOURNAL)) as h:
        out = await h.ok("rag_search", query="how much money do I need to pay back to my friend?", max_results=2)
        top = out["results"][0]
        assert top["source_file"] == "Journal/2025-03-02.md" and top["section"] == "Money"
        assert top["date"] == "2025-03-02" and top["chunk_index"] == 1
        assert "owe Sam" in top["chunk_text"] and top["obsidian_url"].endswith("%23Money")
        assert top["sensitive"] is True and out["sensitive_detected"] is True
        assert out["next_cursor"] and len(out["results"]) == 2
        out = await h.ok("rag_search", query="feeling nervous", directory_filter=["Journal"], max_results=5)
        assert {r["source_file"] for r in out["results"]} <= {"Journal/2025-03-02.md", "Journal/2024-11-20.md"}
        out = await h.ok("rag_search", query="feeling", date_range={"from": "2024-01-01", "to": "2024-12-31"})
        assert [r["source_file"] for r in out["results"]] == ["Journal/2024-11-20.md"]
        out = await h.ok("rag_search", query="bread in the oven", tags=["food"], max_results=1)
        assert out["results"][0]["source_file"] == "Baking/Sourdough.md" and out["sensitive_detected"] is False


async def test_rag_search_date_range_matches_a_known_creation_date(make_vault: Callable[..., Path]) -> None:
    """A note matches `date_range` by its date (name, else mtime: today here) or by its creation
    date from frontmatter `created`, which the result then carries."""
    notes = {
        **JOURNAL,
        "Pets/Kittens.md": "---\ncreated: 2024-06-05\n---\n# Kittens\n\nA kitten needs a litter box and toys.\n",
        "Pets/Dogs.md": "---\ncreated: 2023-02-01T10:00\n---\n# Dogs\n\nA puppy needs walks and toys.\n",
    }
    async with semantic(make_vault(notes)) as h:
        june = {"from": "2024-06-01", "to": "2024-06-30"}
        out = await h.ok("rag_search", query="what does a kitten need", date_range=june, max_results=10)
        assert [r["source_file"] for r in out["results"]] == ["Pets/Kittens.md"]
        assert out["results"][0]["created"] == "2024-06-05" and out["results"][0]["date"] != "2024-06-05"
        out = await h.ok("rag_search", query="a puppy", date_range={"to": "2023-12-31"}, max_results=10)
        assert [r["source_file"] for r in out["results"]] == ["Pets/Dogs.md"]
        out = await h.ok("rag_search", query="a puppy", max_results=10)
        created = {r["source_file"]: r["created"] for r in out["results"]}
        assert created["Pets/Dogs.md"] == "2023-02-01" and created.get("Travel/Japan.md") is None


async def test_rag_search_limit_is_the_page_size_as_max_results(make_vault: Callable[..., Path]) -> None:
    """`limit` (the page size of the other search tools) sets rag_search's page as max_results
    does; its pages follow on from each other, and the two disagreeing is a validation error."""
    async with semantic(make_vault(JOURNAL)) as h:
        first = await h.ok("rag_search", query="feeling", limit=2)
        assert len(first["results"]) == 2 and first["next_cursor"]
        same = await h.ok("rag_search", query="feeling", max_results=2, limit=2)
        assert [r["chunk_text"] for r in same["results"]] == [r["chunk_text"] for r in first["results"]]
        rest = await h.ok("rag_search", query="feeling", limit=3, cursor=first["next_cursor"])
        assert len(rest["results"]) == 3
        seen = [(r["source_file"], r["chunk_index"]) for r in first["results"] + rest["results"]]
        assert len(set(seen)) == 5
        await h.err("rag_search", "validation_error", query="feeling", max_results=3, limit=2)
        await h.err("rag_search", "validation_error", query="feeling", limit=51)


async def test_rag_search_gives_each_chunk_its_heading_path(make_vault: Callable[..., Path]) -> None:
    """Two sections of one name under different headings are told apart by their heading path."""
    garden = (
        "# Garden\n\n## Vegetables\n\n### Care\n\nTomatoes need full sun, deep watering and stakes.\n\n"
        "## Flowers\n\n### Care\n\nRoses need pruning in early spring and mulch.\n"
    )
    async with semantic(make_vault({**VAULT, "Garden.md": garden})) as h:
        out = await h.ok("rag_search", query="how do I care for tomatoes", max_results=1)
        top = out["results"][0]
        assert top["section"] == "Care" and top["heading_path"] == ["Garden", "Vegetables", "Care"]
        out = await h.ok("rag_search", query="pruning roses in spring", max_results=1)
        assert out["results"][0]["heading_path"] == ["Garden", "Flowers", "Care"]


async def test_rag_search_takes_only_a_calendar_date_from_a_file_name(make_vault: Callable[..., Path]) -> None:
    """'2026-02-30' in a name is no date: the note's date is its modification date, and a
    date_range around the impossible day does not match it."""
    notes = {**JOURNAL, "Logs/Log 2026-02-30.md": "# Log\n\nMeeting about quarterly zebra budgets.\n"}
    async with semantic(make_vault(notes)) as h:
        top = (await h.ok("rag_search", query="zebra meeting", max_results=1))["results"][0]
        assert top["source_file"] == "Logs/Log 2026-02-30.md" and top["date"] != "2026-02-30"
        dt.date.fromisoformat(top["date"])
        feb = {"from": "2026-02-01", "to": "2026-03-01"}
        out = await h.ok("rag_search", query="zebra meeting", date_range=feb, max_results=10)
        assert all(r["source_file"] != "Logs/Log 2026-02-30.md" for r in out["results"])


@pytest.mark.covers("rag_search", "failure")
async def test_rag_search_failures(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(JOURNAL)) as h:
        await h.err("rag_search", "validation_error", query="x", date_range={"from": "2025-01-02", "to": "2025-01-01"})
        await h.err("rag_search", "validation_error", query="x", max_results=51)
        unknown = await h.err("rag_search", "note_not_found", query="x", directory_filter=["Nowhere"])
        assert unknown["details"]["field"] == "directory_filter", unknown  # the argument to fix (was 'folder')
    from tests.conftest import started

    async with started(make_vault(JOURNAL)) as h:
        await h.err("rag_search", "mode_unavailable", query="x")


async def test_rag_search_suggests_a_fact_to_remember_that_memory_store_then_keeps(
    make_vault: Callable[..., Path],
) -> None:
    """Seed 003's memory_suggestion: a money fact in the results gives a key, the sentence and the
    note; storing exactly that with memory_store makes it an observation search_memory finds. No
    suggestion when no pattern matches, or when the patterns are turned off."""
    async with semantic(make_vault(JOURNAL)) as h:
        out = await h.ok("rag_search", query="how much money do I need to pay back to my friend?", max_results=1)
        tip = out["memory_suggestion"]
        assert tip == {
            "key": "financial_2025_03_02",
            "value": "I owe Sam 40 dollars for the concert tickets.",
            "source": "Journal/2025-03-02.md",
            "kind": "financial",
            "matched": "owe",
        }
        assert (await h.ok("memory_store", key=tip["key"], value=tip["value"], source=tip["source"]))["stored"]
        found = await h.ok("search_memory", query="owe Sam dollars")
        assert found["items"][0]["text"] == tip["value"] and found["items"][0]["source"] == tip["source"]
        calm = await h.ok("rag_search", query="bread in the oven", tags=["food"], max_results=1)
        assert calm["memory_suggestion"] is None
    async with semantic(make_vault(JOURNAL), memory={"suggest_patterns": {}}) as h:
        out = await h.ok("rag_search", query="how much money do I need to pay back to my friend?", max_results=1)
        assert out["memory_suggestion"] is None
