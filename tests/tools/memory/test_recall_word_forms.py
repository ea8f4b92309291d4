"""search_memory matches a word in its other forms, the same way at index and at query time
(`service.memory.words.fold`, the Snowball English stemmer): `live` finds "Lives in Seattle",
`bake` finds "Baked a cake", `study` finds "Studies", where the old ending fold made `lives` `liv`
and left `live` as it was (found in session 73: with embeddings off, "where does Steph live"
matched no word of "Lives in Seattle")."""

from __future__ import annotations

from tests.conftest import Harness


async def test_a_word_finds_its_other_forms(vg: Harness) -> None:
    people = [
        {
            "name": "Steph",
            "entityType": "person",
            "observations": ["CEO of Obsidian", "Lives in Seattle", "Baked a cake for the team", "Studies Japanese"],
        },
        {"name": "Kevin", "entityType": "person", "observations": ["Founding editor of Wired"]},
    ]
    await vg.ok("create_entities", entities=people)
    for query, found in (
        ("Where does Steph live?", "Lives in Seattle"),
        ("What did Steph bake?", "Baked a cake for the team"),
        ("What does Steph study?", "Studies Japanese"),
        ("Who is living in Seattle?", "Lives in Seattle"),
    ):
        out = await vg.ok("search_memory", query=query, limit=2)
        assert out["by_meaning"] is False  # words alone find it
        assert out["items"][0]["text"] == found, query


async def test_a_near_duplicate_in_another_form_is_reported(vg: Harness) -> None:
    await vg.ok(
        "create_entities", entities=[{"name": "Steph", "entityType": "person", "observations": ["Lives in Seattle"]}]
    )
    out = await vg.ok("add_observations", observations=[{"entityName": "Steph", "contents": ["Live in Seattle"]}])
    # the near-duplicate check folds words as the search does: 'live' and 'lives' are one word
    # (the old fold made them two)
    assert out["results"][0]["similar"] == 1, out


async def test_an_irregular_verbs_past_forms_find_the_verb(vg: Harness) -> None:
    """`went` is `go`, `drew` and `drawn` are `draw`, `bought` is `buy` (the stemmer leaves them
    apart: before s78 "Where did Ann go?" matched no word of "Went to Lisbon in May")."""
    ann = {
        "name": "Ann",
        "entityType": "person",
        "observations": [
            "Likes tea",
            "Plays chess on Sundays",
            "Went to Lisbon in May",
            "Drew a horse for her niece",
            "Bought a red bike",
        ],
    }
    await vg.ok("create_entities", entities=[ann])
    for query, found in (
        ("Where did Ann go?", "Went to Lisbon in May"),
        ("What has Ann drawn?", "Drew a horse for her niece"),
        ("What did Ann buy?", "Bought a red bike"),
    ):
        out = await vg.ok("search_memory", query=query, limit=3)
        assert out["by_meaning"] is False
        assert [i["text"] for i in out["items"]][:1] == [found], (query, out["items"])
