"""create_entities whose report is over `[governor] max_response_bytes` (M2 s84): every entity
was made, but the governor halved `created` until it fit and the answer had no `truncated` to
say so: 50 entities of 1,000 observations each answered 3 in `created`, 47 made entities
reported nowhere. Now the observations it echoes go first, each entity's name, type and path stay,
and `truncated` is set, as add_observations does (test_add_observations_report_fits.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


async def test_every_made_entity_stays_in_the_shortened_report(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({}), governor={"max_response_bytes": 16_384}) as vg:
        texts = [f"fact {j} " + " ".join(f"w{j}x{k}" for k in range(20)) for j in range(40)]
        entities = [{"name": f"Band {i}", "entityType": "band", "observations": texts} for i in range(20)]
        out = await vg.ok("create_entities", entities=entities)
        assert out["truncated"] is True, out
        assert [e["name"] for e in out["created"]] == [f"Band {i}" for i in range(20)], out
        assert {e["path"] for e in out["created"]} == {f"Memory/Band {i}.md" for i in range(20)}
        assert all(e["observations"] == [] for e in out["created"])
        assert len(list((vg.root / "Memory").glob("Band *.md"))) == 20
        small = await vg.ok(
            "create_entities", entities=[{"name": "Solo", "entityType": "band", "observations": ["Loud"]}]
        )
        assert small["truncated"] is False and small["created"][0]["observations"][0]["text"] == "Loud", small
