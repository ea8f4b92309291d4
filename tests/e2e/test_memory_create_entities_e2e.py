"""tests/tools/memory/test_create_entities_repeated.py over real HTTP with the SDK client (both
eras): create_entities in the official memory server's shape naming one entity in two items makes
it once with both items' observations (before M2 s84 the second item's were dropped, the call
answering success), and two types for one name are refused with nothing written, as is a blank
type (M3 s85). With the
report over `[governor] max_response_bytes` (tests/tools/memory/test_create_entities_report_fits.py)
every made entity is still listed, its echoed observations left out and `truncated` set."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok


async def test_a_name_given_twice_in_one_call_keeps_every_observation(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault({"Notes/Home.md": "# Home\n"})
    async with e2e(root, governor={"max_response_bytes": 16_384}) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        entities = [
            {"name": "AC/DC", "entityType": "band", "observations": ["Formed in Sydney"]},
            {"name": "AC/DC", "entityType": "band", "observations": ["Plays loud", "Formed in Sydney"]},
        ]
        made = await ok(client, "create_entities", entities=entities)
        assert [e["name"] for e in made["created"]] == ["AC/DC"] and made["existing"] == [], made
        [node] = (await ok(client, "open_nodes", names=["AC/DC"]))["entities"]
        assert [o["text"] for o in node["observations"]] == ["Formed in Sydney", "Plays loud"], node
        before = snapshot(root)
        two_types = [{"name": "Mercury", "entityType": "planet"}, {"name": "Mercury", "entityType": "element"}]
        refused = await error(client, "create_entities", entities=two_types)
        assert (refused["code"], refused["details"]["reason"]) == ("validation_error", "repeated_name"), refused
        blank = await error(client, "create_entities", entities=[{"name": "Untyped", "entityType": " "}])
        assert (blank["code"], blank["details"]) == (
            "validation_error",
            {"field": "entities[0].entityType", "reason": "empty"},
        ), blank
        assert snapshot(root) == before
        texts = [f"fact {j} " + " ".join(f"w{j}x{k}" for k in range(20)) for j in range(40)]
        many = await ok(
            client,
            "create_entities",
            entities=[{"name": f"Band {i}", "entityType": "band", "observations": texts} for i in range(20)],
        )
        assert many["truncated"] is True and [e["name"] for e in many["created"]] == [f"Band {i}" for i in range(20)], (
            many
        )
        assert made["truncated"] is False
