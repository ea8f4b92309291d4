"""Questions typed as sentences, through the full dispatch chain: stop words are left out, a
relaxed (any word) pass follows the strict (every word) one when it fills less than a page, and
every text tool says which pass answered (service/retrieval/query.py, text.py)."""

from __future__ import annotations

import pytest

from tests.conftest import Harness

QUESTION = "What do I need to launch a rocket into orbit?"


def paths(out: dict) -> list[str]:
    return [item["path"] for item in out["items"]]


@pytest.mark.covers("search_text", "success")
async def test_search_text_answers_a_question_with_the_relaxed_pass(sv: Harness) -> None:
    out = await sv.ok("search_text", query=QUESTION)
    # No note has need + launch + rocket + orbit: notes with some of them, most and rarest first.
    assert out["match"] == "any"
    assert out["query"] == '("need" AND "launch" AND "rocket" AND "orbit?")'
    assert paths(out)[0] == "Projects/Alpha.md"
    assert "Journal/2026-01-06.md" in paths(out)  # rockets, orbital
    assert "Projects/Beta.md" in paths(out)  # rocket, in a code block
    assert len(paths(out)) == len(set(paths(out)))
    assert all(i["match"] == "any" for i in out["items"])
    assert all(i["highlights"] for i in out["items"])  # the snippet shows the words that matched


@pytest.mark.covers("search_text", "success")
async def test_search_text_strict_hits_come_first_then_the_relaxed_ones(sv: Harness) -> None:
    out = await sv.ok("search_text", query="when does the rocket launch on friday")
    assert out["match"] == "any"
    assert [i["match"] for i in out["items"][:1]] == ["all"]
    assert paths(out)[0] == "Projects/Alpha.md"  # the only note with rocket, launch and friday
    assert {i["match"] for i in out["items"][1:]} == {"any"}
    assert "Private/Secret.md" in paths(out)[1:]  # rocket + launch, no friday
    # A page the strict pass fills is answered by it alone.
    full = await sv.ok("search_text", query="the rocket launches", limit=2)
    assert full["match"] == "all" and {i["match"] for i in full["items"]} == {"all"}
    assert sorted(paths(full)) == ["Private/Secret.md", "Projects/Alpha.md"]


@pytest.mark.covers("search_text", "success")
async def test_search_text_pages_through_both_passes_with_the_cursor(sv: Harness) -> None:
    everything = paths(await sv.ok("search_text", query=QUESTION, limit=1))
    whole = paths(await sv.ok("search_text", query=QUESTION, limit=100))
    assert everything == whole[:1]
    seen: list[str] = []
    cursor = None
    while True:
        args = {"query": QUESTION, "limit": 2} | ({"cursor": cursor} if cursor else {})
        page = await sv.ok("search_text", **args)
        seen += paths(page)
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == whole


@pytest.mark.covers("search_text", "success")
async def test_search_text_stop_words_only_and_explicit_operators(sv: Harness) -> None:
    only = await sv.ok("search_text", query="on the", sort="path")
    assert paths(only) == ["Projects/Alpha.md", "Projects/Gamma.md"] and only["match"] == "all"
    assert only["query"] == '("on" AND "the")'
    # AND written: every word required, no relaxed pass, even with an empty result.
    strict = await sv.ok("search_text", query="rocket AND orbit AND friday")
    assert strict["items"] == [] and strict["match"] == "all"
    # Phrases and prefixes are kept as written in the relaxed pass.
    phrase = await sv.ok("search_text", query='how are "planted tomatoes" and orbit* related')
    assert phrase["match"] == "any"
    assert sorted(paths(phrase)) == ["Journal/2026-01-05.md", "Journal/2026-01-06.md"]
    # Exclusions hold in the relaxed pass too.
    excluded = await sv.ok("search_text", query="rocket science garden -soil -tomatoes")
    assert excluded["match"] == "any" and paths(excluded)[0] == "Projects/Gamma.md"
    assert "Projects/Beta.md" not in paths(excluded) and "Journal/2026-01-05.md" not in paths(excluded)


@pytest.mark.covers("search_text", "failure")
async def test_search_text_question_failures_change_nothing(sv: Harness) -> None:
    before = sv.snapshot()
    first = await sv.ok("search_text", query=QUESTION, limit=2)
    # The page size decides whether the relaxed pass runs, so a cursor keeps it.
    error = await sv.err("search_text", "validation_error", query=QUESTION, limit=3, cursor=first["next_cursor"])
    assert "cursor" in error["message"]
    await sv.err("search_text", "query_syntax_error", query="how does the (rocket launch")
    await sv.err("search_text", "query_syntax_error", query='how do I "open')
    assert sv.snapshot() == before


@pytest.mark.covers("search_vault", "success")
async def test_search_vault_text_and_hybrid_modes_answer_questions(sv: Harness) -> None:
    text = await sv.ok("search_vault", mode="text", query=QUESTION)
    assert text["text_match"] == "any" and paths(text)[0] == "Projects/Alpha.md"
    hybrid = await sv.ok("search_vault", query=QUESTION, tags=["project/alpha"])
    assert hybrid["mode"] == "hybrid" and hybrid["text_match"] == "any"
    assert set(paths(hybrid)[:2]) == {"Projects/Alpha.md", "Private/Secret.md"}
    assert "Journal/2026-01-06.md" in paths(hybrid)
    tags = await sv.ok("search_vault", tags=["project"])
    assert tags["text_match"] is None


@pytest.mark.covers("search_vault", "failure")
async def test_search_vault_question_cursor_keeps_the_page_size(sv: Harness) -> None:
    first = await sv.ok("search_vault", query=QUESTION, tags=["project/alpha"], limit=1)
    await sv.err(
        "search_vault", "validation_error", query=QUESTION, tags=["project/alpha"], limit=2, cursor=first["next_cursor"]
    )


@pytest.mark.covers("search_notes", "success")
async def test_search_notes_full_text_answers_a_question(sv: Harness) -> None:
    out = await sv.ok("search_notes", mode="full_text", query=QUESTION)
    assert out["text_match"] == "any" and paths(out)[0] == "Projects/Alpha.md"
    assert out["total"] == len(out["items"]) >= 4
    assert out["items"][0]["score"] == 1.0 and out["items"][0]["snippet"]
    strict = await sv.ok("search_notes", mode="full_text", query="the rocket launches", limit=2)
    assert strict["text_match"] == "all" and strict["total"] == 2
    filtered = await sv.ok("search_notes", mode="full_text", query=QUESTION, properties={"status": "active"})
    assert sorted(paths(filtered)) == ["Private/Secret.md", "Projects/Alpha.md"]
    tags_only = await sv.ok("search_notes", mode="tags", tags=["project"])
    assert tags_only["text_match"] is None


@pytest.mark.covers("search_notes", "failure")
async def test_search_notes_question_failures(sv: Harness) -> None:
    before = sv.snapshot()
    first = await sv.ok("search_notes", mode="full_text", query=QUESTION, limit=1)
    cursor = first["next_cursor"]
    await sv.err("search_notes", "validation_error", mode="full_text", query=QUESTION, limit=2, cursor=cursor)
    await sv.err("search_notes", "query_syntax_error", mode="full_text", query="what about rocket OR")
    assert sv.snapshot() == before
