"""search_memory favours the observations about a month the question names without a year ("in
July": July of any year), as it does a day or a month with its year (`service.memory.when.months`)."""

from __future__ import annotations

from tests.conftest import Harness


async def _ann(vg: Harness, *dated: tuple[str, str]) -> None:
    await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person"}])
    for text, date in dated:
        await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": [text], "date": date}])


async def test_a_month_named_without_a_year_picks_the_observations_of_that_month(vg: Harness) -> None:
    await _ann(
        vg,
        ("Went camping in the mountains with the kids", "1:56 pm on 8 June, 2023"),
        ("Went camping at the lake with the kids", "20 July, 2023"),
        ("Went camping in the forest with the kids", "3 July, 2022"),
    )
    out = await vg.ok("search_memory", query="When did Ann go camping in July?", limit=3)
    texts = [i["text"] for i in out["items"]]
    # July of both years before June; no year is guessed
    assert set(texts[:2]) == {"Went camping at the lake with the kids", "Went camping in the forest with the kids"}
    assert texts[2] == "Went camping in the mountains with the kids"
    june = await vg.ok("search_memory", query="When did Ann go camping during June?", limit=3)
    assert june["items"][0]["text"] == "Went camping in the mountains with the kids"


async def test_a_month_with_its_year_is_still_that_month_only(vg: Harness) -> None:
    await _ann(
        vg,
        ("Went camping at the lake", "20 July, 2023"),
        ("Went camping in the forest", "3 July, 2022"),
    )
    out = await vg.ok("search_memory", query="When did Ann go camping in July 2022?", limit=2)
    assert out["items"][0]["text"] == "Went camping in the forest"
    # "in may" is a month only where one is named after in/during: the word stays otherwise
    may = await vg.ok("search_memory", query="Ann may go camping", limit=2)
    assert len(may["items"]) == 2
