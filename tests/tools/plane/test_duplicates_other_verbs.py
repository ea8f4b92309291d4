"""The same fact with another verb is a near duplicate, with vectors on too. Left by B3 s78 on
the held-out `--families hard` bench: "Read chemistry at the university of Oslo" / "Studied
chemistry at Oslo university" (a cosine of 0.94, but one word swapped for the other, which the
words' guard reads as another thing: "Plays the piano" / "Plays the guitar") and "Took in a
rescue dog in March 2019" / "Adopted a dog in March 2019" (other words, and a cosine of 0.79).
Now a few verbs that say the same of a person are compared as one (`service.plane.spelt`: "read
chemistry at" is "studied chemistry at", "took in" "adopted"), and with vectors a pair with 60 %
of its words in common is a near duplicate as it is without them (it was dropped for a cosine
under 0.80: with vectors on, the words alone no longer counted); the guards (another number,
name, tense, thing) hold."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started

SAME = [
    ("Studied chemistry at Oslo university", "Read chemistry at the university of Oslo"),
    ("Took in a rescue dog in March 2019", "Adopted a dog in March 2019"),
    ("Lives in Paris with Ann", "Resides in Paris with Ann"),
    ("Works for Acme", "Is employed by Acme"),
]
OTHER = [
    ("Studied chemistry at Rome university", "Read physics at the university of Rome"),
    ("Took in a rescue dog in May 2019", "Adopted a dog in March 2019"),
    ("Was employed by Acme", "Works for Acme"),
    ("Resides in Paris with Ann", "Lives in Paris with Bob"),
]


async def _pairs(vg: Harness) -> set[frozenset[str]]:
    for i, (old, new) in enumerate([*SAME, *OTHER]):
        await vg.ok("create_entities", entities=[{"name": f"V{i}", "entityType": "person", "observations": []}])
        for text in (old, new):
            await vg.ok("add_observations", observations=[{"entityName": f"V{i}", "contents": [text]}])
    await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
    found = (await vg.ok("list_findings", limit=100))["items"]
    return {
        frozenset({f["detail"]["kept"], f["detail"]["duplicate"]}) for f in found if f["kind"].endswith("duplicate")
    }


@pytest.mark.parametrize("embeddings", ["none", "builtin"])
async def test_another_verb_or_word_order_is_the_same_fact(make_vault: Callable[..., Path], embeddings: str) -> None:
    async with started(make_vault({}), embeddings={"provider": embeddings}) as vg:
        assert await _pairs(vg) == {frozenset(pair) for pair in SAME}


async def test_the_detail_is_kept(vg: Harness) -> None:
    """Of "Took in a rescue dog" and "Adopted a dog", the one without the detail goes."""
    await _pairs(vg)
    found = (await vg.ok("list_findings", limit=100))["items"]
    [dog] = [f for f in found if "dog" in f["detail"]["kept"]]
    assert dog["detail"]["duplicate"] == "Adopted a dog in March 2019", dog
