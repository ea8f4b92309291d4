"""Near duplicates written another way end to end (real uvicorn, the SDK client, both eras): "5 km"
and "5 kilometres", "March 2019" and "2019-03", "every weekend" and "on Saturdays and Sundays" are
one fact each (they were kept as two), "5 km" and "5 miles" two; applying the finding deletes the
repeat and keeps the other line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

LINES = [
    "Runs 5 km every morning",
    "Runs 5 kilometres every morning",
    "Adopted a dog in March 2019",
    "Adopted a dog in 2019-03",
    "Plays the piano every weekend",
    "Plays the piano on Saturdays and Sundays",
    "Swims 2 km on Mondays",
    "Swims 2 miles on Mondays",
]


async def test_the_same_fact_written_another_way_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({})) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await ok(c, "create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": []}])
        for text in LINES:
            await ok(c, "add_observations", observations=[{"entityName": "Ann", "contents": [text]}])
        await ok(c, "run_consolidation", wait=True, jobs=["duplicates"])
        found = (await ok(c, "list_findings", kind="near_duplicate"))["items"]
        pairs = {(f["detail"]["kept"], f["detail"]["duplicate"]) for f in found}
        assert pairs == {
            ("Runs 5 km every morning", "Runs 5 kilometres every morning"),
            ("Adopted a dog in March 2019", "Adopted a dog in 2019-03"),
            ("Plays the piano every weekend", "Plays the piano on Saturdays and Sundays"),
        }, pairs
        [dog] = [f for f in found if f["detail"]["kept"].startswith("Adopted")]
        assert (await ok(c, "apply_finding", finding_id=dog["id"]))["run"]["status"] == "done"
        [ann] = (await ok(c, "open_nodes", names=["Ann"]))["entities"]
        texts = [o if isinstance(o, str) else o["text"] for o in ann["observations"]]
        assert "Adopted a dog in March 2019" in texts and "Adopted a dog in 2019-03" not in texts, texts
