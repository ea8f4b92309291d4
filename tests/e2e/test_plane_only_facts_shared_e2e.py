"""Two facts sharing only a place and a year are no near duplicate, end to end (real uvicorn, the
SDK client, both eras, vectors on): "Visited Oslo in 2013" / "Relocated to Oslo for work in 2013"
(a cosine of 0.82) was one, whose plan deleted one of two true facts; "Visited Rome in 2010" /
"Made a trip to Rome back in 2010" still is one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

LINES = {
    "Person 0001": ["Visited Oslo in 2013", "Relocated to Oslo for work in 2013"],
    "Person 0002": ["Visited Rome in 2010", "Made a trip to Rome back in 2010"],
}


async def test_a_place_and_a_year_in_common_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with (
        e2e(make_vault({}), embeddings={"provider": "builtin"}) as (url, _),
        Client(url, mode=mode) as c,  # type: ignore[arg-type]
    ):
        for name, texts in LINES.items():
            await ok(c, "create_entities", entities=[{"name": name, "entityType": "person", "observations": []}])
            for text in texts:
                await ok(c, "add_observations", observations=[{"entityName": name, "contents": [text]}])
        await ok(c, "run_consolidation", wait=True, jobs=["duplicates"])
        found = (await ok(c, "list_findings", kind="near_duplicate"))["items"]
        assert {f["detail"]["entity"] for f in found} == {"Person 0002"}, found
