"""search_memory's `since` and `until` compare an observation dated by a month or a year as the
span it names (kept while the span reaches the bounds), never as text: "May 2023" is before
June 2023, and "2023" is one year whichever bound looks at it."""

from __future__ import annotations

from tests.conftest import Harness

DATED = [("Painted the fence", "May 2023"), ("Moved house", "in 2023"), ("Planted roses", "10 June 2023")]


async def test_a_month_or_a_year_is_compared_as_the_days_it_spans(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person"}])
    for text, date in DATED:
        await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": [text], "date": date}])

    async def kept(**bounds: str) -> set[str]:
        out = await vg.ok("search_memory", query="Ann", limit=10, **bounds)
        return {i["text"] for i in out["items"]}

    assert await kept(since="2023-06-01") == {"Moved house", "Planted roses"}  # May 2023 ended before
    assert await kept(until="2023-05-31") == {"Painted the fence", "Moved house"}
    assert await kept(since="2023-05-09", until="2023-05-20") == {"Painted the fence", "Moved house"}
    assert await kept(until="2022-12-31") == set()
    assert await kept(since="2024") == set()
