"""search_memory through the recall index (`service.memory.recall`), through the dispatch chain:
an entity named in the question is what it is about (not a word to match), an observation is
found by meaning with the built-in model, a note edited on disk is searched as it is now, and
vectors are kept across a restart."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.memory.recall import Recall
from tests.conftest import Harness, started

BUILTIN = {"embeddings": {"provider": "builtin"}}


def _recall(vg: Harness) -> Recall:
    assert vg.app.services.recall is not None
    return vg.app.services.recall.of(next(iter(vg.app.vaults.values())))


async def test_a_name_in_the_question_picks_the_entity_not_the_turns_that_address_it(vg: Harness) -> None:
    people = [
        {
            "name": "Caroline",
            "entityType": "person",
            "observations": ["I joined a mentorship program for young artists", "Work has been busy"],
        },
        {
            "name": "Melanie",
            "entityType": "person",
            "observations": ["Thanks Caroline, Caroline you are the best Caroline", "That sounds lovely, Caroline"],
        },
    ]
    await vg.ok("create_entities", entities=people)
    out = await vg.ok("search_memory", query="What program did Caroline join?", limit=3)
    assert out["items"][0]["text"] == "I joined a mentorship program for young artists"
    # Words alone (embeddings off in this harness): the turns that only say the name are no hits.
    assert all(i["entity"] == "Caroline" for i in out["items"]) and out["by_meaning"] is False
    only_name = await vg.ok("search_memory", query="Caroline", limit=5)
    assert only_name["items"] and only_name["items"][0]["entity"] in ("Caroline", "Melanie")


async def test_an_observation_edited_on_disk_is_searched_as_it_is_now(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": ["Likes tea"]}])
    assert (await vg.ok("search_memory", query="tea"))["items"]
    note = vg.root / "Memory" / "Ann.md"
    text = note.read_text(encoding="utf-8").replace("Likes tea", "Likes espresso")
    note.write_text(text + "- [fact] Plays the cello\n", encoding="utf-8")
    assert (await vg.ok("search_memory", query="tea"))["items"] == []
    found = await vg.ok("search_memory", query="espresso cello", limit=5)
    assert {i["text"] for i in found["items"]} >= {"Likes espresso"}
    note.unlink()
    assert (await vg.ok("search_memory", query="espresso"))["items"] == []


async def test_an_observation_is_found_by_meaning_and_its_vector_survives_a_restart(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({})
    facts = ["Adopted a golden retriever puppy last spring", "Drives a red bicycle to the office"]
    async with started(root, **BUILTIN) as vg:
        await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": facts}])
        await vg.ok("search_memory", query="warm up")
        recall = _recall(vg)
        await recall.settled()
        out = await vg.ok("search_memory", query="Which animal does she own as a pet?", limit=1)
        assert out["by_meaning"] is True and out["vectors_pending"] == 0
        assert out["items"][0]["text"] == facts[0]  # no word in common: found by meaning
    async with started(root, **BUILTIN) as vg:
        recall = _recall(vg)
        await recall.refresh()
        assert recall.pending == 0 and len(recall.vectors) == 2
        out = await vg.ok("search_memory", query="Which animal does she own as a pet?", limit=1)
        assert out["items"][0]["text"] == facts[0]


async def test_a_query_that_matches_nothing_finds_nothing_by_words(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": ["Likes tea"]}])
    assert (await vg.ok("search_memory", query="zeppelin quantum"))["items"] == []
