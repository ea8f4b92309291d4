"""add_observations' near-duplicate check (`similar_existing`) through an inverted index of the
note's and the call's observations (`service.tools.memory.similar`): the same verdicts as
comparing every pair, and a compute budget: past it the call is compute_budget_exceeded and
nothing is written, through the dispatch chain and over real HTTP with the SDK client
(T1 s63 #5: 1,000 observations of ~3,500 characters held an entity 48 s and more)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from service.memory.model import Entity, Observation
from service.memory.words import word_set
from service.tools.memory import adding, similar
from tests.conftest import Harness, e2e
from tests.e2e.calls import error, ok


def _all_pairs(text: str, observations: list[Observation]) -> Observation | None:
    """The check as it was: every pair compared, the most in common (the later on a tie)."""
    mine = word_set(text)
    best, share = None, similar.SIMILAR
    for obs in observations:
        theirs = word_set(obs.text)
        if mine and theirs:
            overlap = len(mine & theirs) / len(mine | theirs)
            if overlap >= share:
                best, share = obs, overlap
    return best


def _generated(rng: random.Random, n: int) -> list[str]:
    vocab = [f"w{i}" for i in range(40)] + ["the", "and", "paints", "painted", "painting", "cats", "cat"]
    out: list[str] = []
    for _ in range(n):
        roll = rng.random()
        if out and roll < 0.35:  # a near copy of an earlier one: a word changed, dropped or added
            words = rng.choice(out).split()
            words[rng.randrange(len(words))] = rng.choice(vocab)
            if rng.random() < 0.5:
                words.append(rng.choice(vocab))
            out.append(" ".join(words))
        elif roll < 0.4:
            out.append(rng.choice(["the and", "the", "and the"]))  # no word of its own: never similar
        elif out and roll < 0.45:
            out.append(rng.choice(out))  # an exact repeat: skipped
        else:
            out.append(" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 8))))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_index_gives_the_verdicts_of_every_pair_compared(seed: int) -> None:
    rng = random.Random(seed)
    had = _generated(rng, 150)
    texts = _generated(rng, 250)
    entity = Entity("E", "t", [Observation(t, None, f"m-{i}", {}) for i, t in enumerate(dict.fromkeys(had))])
    reference = list(entity.observations)
    added, skipped, near = adding.add_to(entity, texts, None, {})
    expected: list[tuple[str, str, str]] = []
    seen = {o.text for o in reference}
    for text in texts:
        if text in seen:
            continue
        seen.add(text)
        found = _all_pairs(text, reference)
        if found is not None:
            expected.append((text, found.text, found.block_id))
        reference.append(next(o for o in added if o.text == text))
    assert [(s.text, s.existing, s.existing_block_id) for s in near] == expected
    assert len(expected) > 50 and skipped  # the generated input has many of both


async def test_a_call_past_the_budget_is_refused_and_nothing_is_written(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    await vg.ok("create_entities", entities=[{"name": "Big", "entityType": "t", "observations": ["seed words here"]}])
    before = vg.snapshot()
    monkeypatch.setattr(similar, "MAX_POSTINGS", 5_000)
    rng = random.Random(7)
    words = [f"w{i}" for i in range(300)]
    contents = [" ".join(rng.choice(words) for _ in range(60)) for _ in range(200)]
    error = await vg.err(
        "add_observations", "compute_budget_exceeded", observations=[{"entityName": "Big", "contents": contents}]
    )
    assert error["details"]["limit"] == "steps" and error["details"]["max_steps"] == 5_000
    assert vg.snapshot() == before
    small = await vg.ok("add_observations", observations=[{"entityName": "Big", "contents": ["seed words here too"]}])
    assert small["results"][0]["similar_existing"][0]["existing"] == "seed words here"


async def test_the_refusal_reaches_the_sdk_client(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(similar, "MAX_POSTINGS", 5_000)
    rng = random.Random(7)
    words = [f"w{i}" for i in range(300)]
    contents = [" ".join(rng.choice(words) for _ in range(60)) for _ in range(200)]
    async with e2e(make_vault({}), throttle={"enabled": False}) as (url, harness), Client(url, mode="legacy") as client:
        await ok(
            client, "create_entities", {"entities": [{"name": "Big", "entityType": "t", "observations": ["seed"]}]}
        )
        before = harness.read("Memory/Big.md")
        refused = await error(
            client, "add_observations", {"observations": [{"entityName": "Big", "contents": contents}]}
        )
        assert refused["code"] == "compute_budget_exceeded" and refused["details"]["limit"] == "steps"
        assert harness.read("Memory/Big.md") == before
        done = await ok(client, "add_observations", {"observations": [{"entityName": "Big", "contents": contents[:5]}]})
        assert done["results"][0]["added"] == 5
