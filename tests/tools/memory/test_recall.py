"""search_memory through the recall index (`service.memory.recall`), through the dispatch chain:
an entity named in the question is what it is about (not a word to match), an observation is
found by meaning with the built-in model, a note edited on disk is searched as it is now, and
vectors are kept across a restart."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.memory.model import recorded_order
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


async def test_one_call_gives_block_ids_in_the_order_it_lists_the_observations(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": n, "entityType": "person"} for n in ("Ann", "Bob")])
    out = await vg.ok(
        "add_observations",
        observations=[
            {"entityName": "Ann", "contents": ["first"]},
            {"entityName": "Bob", "contents": ["second"]},
            {"entityName": "Ann", "contents": ["third"]},
        ],
    )
    ids = [r["block_ids"][0] for r in out["results"]]
    times = [recorded_order(i) for i in ids]
    assert None not in times and times == sorted(times) and len(set(times)) == 3


async def test_a_turn_is_found_by_the_turn_recorded_before_it_in_another_note(vg: Harness) -> None:
    people = ("Caroline", "Melanie", "Bob")
    await vg.ok("create_entities", entities=[{"name": n, "entityType": "person"} for n in people])
    await vg.ok(
        "add_observations",
        observations=[
            {"entityName": "Caroline", "contents": ["What did you paint at the lake last weekend?"]},
            {"entityName": "Melanie", "contents": ["A sunrise, it took me all morning"]},
            {"entityName": "Bob", "contents": ["I adopted a puppy"]},
        ],
    )
    out = await vg.ok("search_memory", query="What did Melanie paint at the lake?", limit=5)
    # Its own words share nothing with the question; the turn before it, in Caroline's note, does.
    assert {i["text"] for i in out["items"]} == {
        "What did you paint at the lake last weekend?",
        "A sunrise, it took me all morning",
    }


async def test_a_day_the_question_names_picks_the_observations_about_it(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person"}])
    for text, date in (
        ("Baked bread", "1:56 pm on 8 May, 2023"),
        ("Baked a cake for the street party", "20 July, 2023"),
    ):
        await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": [text], "date": date}])
    july = await vg.ok("search_memory", query="What was baked by Ann on July 20, 2023?", limit=2)
    assert [i["text"] for i in july["items"]] == ["Baked a cake for the street party", "Baked bread"]
    may = await vg.ok("search_memory", query="What was baked by Ann in May 2023?", limit=2)
    assert may["items"][0]["text"] == "Baked bread"
    # since/until compare days whatever the date's form
    kept = await vg.ok("search_memory", query="baked", since="2023-05-01", until="2023-05")
    assert [i["text"] for i in kept["items"]] == ["Baked bread"]
    later = await vg.ok("search_memory", query="baked", since="2023-06-01")
    assert [i["text"] for i in later["items"]] == ["Baked a cake for the street party"]
