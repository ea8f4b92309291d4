"""An observation whose vector is still being computed is ranked by its words alone, as
docs/memory.md says, not at half of them. Found on a served vault: a person wrote "Rides a bicycle
across America" into an entity note, and search_memory 'bicycle' ranked an observation sharing no
word with it first (0.514) while the new one waited for its vector: every score was mixed half
words, half meaning, and an observation without a vector had no meaning half."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.memory.recall import Recall
from tests.conftest import started


async def test_a_fact_waiting_for_its_vector_is_ranked_by_its_words(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(make_vault({}), embeddings={"provider": "builtin"}) as vg:
        old = ["Cycles to work every morning", "Likes green tea"]
        await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": old}])
        await vg.ok("search_memory", query="warm up")
        assert vg.app.services.recall is not None
        recall = vg.app.services.recall.of(next(iter(vg.app.vaults.values())))
        await recall.settled()

        async def held(self: Recall, embedder: Any) -> None:  # the new fact's vector is not there yet
            return None

        monkeypatch.setattr(Recall, "_embed", held)
        await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["Rides a bicycle to work"]}])
        out = await vg.ok("search_memory", query="bicycle to work", limit=3)
        assert out["by_meaning"] is True and out["vectors_pending"] == 1
        assert [i["text"] for i in out["items"]][:1] == ["Rides a bicycle to work"], out["items"]
