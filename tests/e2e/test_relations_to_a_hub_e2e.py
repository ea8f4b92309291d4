"""tests/tools/memory/test_relations_read_a_target_once.py over HTTP with the SDK client: 1,000
relations to an entity whose note holds 100,000 relations (2.6 MB) are made and deleted in a few
seconds (3 s here, the note written twice). Before A4 s95 each relation read and parsed that note
on the event loop: 50 of them took 33 s, the 1,000 about ten minutes, every other call waiting."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_relations_read_a_target_once import ANN

HUB = "---\nname: Hub\nentityType: topic\n---\n# Hub\n\n## Observations\n- Is big ^m-h\n\n## Relations\n"
HUB += "".join(f"- knows [[Memory/P{i}]]\n" for i in range(100_000))


async def test_a_thousand_relations_to_a_hub_take_seconds(make_vault: Callable[..., Path]) -> None:
    vault = make_vault({"Memory/Ann.md": ANN, "Memory/Hub.md": HUB})
    relations = [{"from": "Ann", "to": "Hub", "relationType": f"kind_{i}"} for i in range(1000)]
    async with e2e(vault) as (url, _), Client(url) as c:
        with anyio.fail_after(90):  # before: ~0.65 s a relation
            made = await ok(c, "create_relations", relations=relations)
            gone = await ok(c, "delete_relations", relations=relations)
        assert (len(made["created"]), gone["deleted"]) == (1000, 1000)
