"""Near duplicates with another verb end to end (real uvicorn, the SDK client, both eras, vectors
on): "Read chemistry at the university of Oslo" / "Studied chemistry at Oslo university" and "Took
in a rescue dog" / "Adopted a dog" are one fact each (kept as two: a one-word swap for the words'
guard; other words and a cosine of 0.79), "Read physics at ..." another; applying the finding
deletes the line without the detail."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

LINES = [
    "Studied chemistry at Oslo university",
    "Read chemistry at the university of Oslo",
    "Took in a rescue dog in March 2019",
    "Adopted a dog in March 2019",
    "Read physics at the university of Rome",
    "Studied chemistry at Rome university",
]


async def test_another_verb_is_the_same_fact_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with (
        e2e(make_vault({}), embeddings={"provider": "builtin"}) as (url, _),
        Client(url, mode=mode) as c,  # type: ignore[arg-type]
    ):
        await ok(c, "create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": []}])
        for text in LINES:
            await ok(c, "add_observations", observations=[{"entityName": "Ann", "contents": [text]}])
        await ok(c, "run_consolidation", wait=True, jobs=["duplicates"])
        found = (await ok(c, "list_findings", kind="near_duplicate"))["items"]
        pairs = {frozenset({f["detail"]["kept"], f["detail"]["duplicate"]}) for f in found}
        assert pairs == {frozenset(LINES[0:2]), frozenset(LINES[2:4])}, pairs
        [dog] = [f for f in found if "dog" in f["detail"]["kept"]]
        assert (await ok(c, "apply_finding", finding_id=dog["id"]))["run"]["status"] == "done"
        [ann] = (await ok(c, "open_nodes", names=["Ann"]))["entities"]
        texts = [o if isinstance(o, str) else o["text"] for o in ann["observations"]]
        assert LINES[2] in texts and LINES[3] not in texts, texts
