"""create_relations and delete_relations read a target's note at most once a call, however many of
their relations name it (A4 s95), through the dispatch chain. Each relation's target was looked
up alone, and the lookup read and parsed the whole entity note it found (`relation_link` loaded
the entity for its path; a `[[wikilink]]` target was read again for its name), in the call's check
and again in the call, on the event loop: 50 relations to an entity whose note held 100,000
relations (2.6 MB) took 33 s, every other client's call waiting; the 1,000 a call may hold, ten
minutes. Now a target is found by its path, and each target (and each `from`) as given is looked
up once a call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started
from tests.tools.memory.reads import counted_reads

ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Lives in Oslo ^m-a\n\n## Relations\n"
HUB = "---\nname: Hub\nentityType: topic\n---\n# Hub\n\n## Observations\n- Is big ^m-h\n\n## Relations\n"
HUB += "".join(f"- knows [[Memory/P{i}]]\n" for i in range(2000))


@pytest.mark.parametrize("target", ["Hub", "[[Memory/Hub]]", "[[Hub|the hub]]"])
async def test_many_relations_to_one_entity_read_its_note_at_most_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    async with started(make_vault({"Memory/Ann.md": ANN, "Memory/Hub.md": HUB})) as vg:
        reads = counted_reads(monkeypatch)
        relations = [{"from": "Ann", "to": target, "relationType": f"kind_{i}"} for i in range(100)]
        made = await vg.ok("create_relations", relations=relations)
        assert len(made["created"]) == 100 and {r["to"] for r in made["created"]} == {"Hub"}, made
        assert reads.count("Memory/Hub.md") <= 2, reads.count("Memory/Hub.md")  # the check's and the call's
        reads.clear()
        gone = await vg.ok("delete_relations", relations=relations)
        assert gone["deleted"] == 100, gone
        assert reads.count("Memory/Hub.md") <= 2, reads.count("Memory/Hub.md")
        opened = await vg.ok("open_nodes", names=["Ann"])
        assert opened["relations"] == []
        reads.clear()
        step = {"id": "r", "tool": "create_relations", "args": {"relations": relations}}
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [step]})
        assert checked["valid"], checked["problems"]
        assert reads.count("Memory/Hub.md") <= 2, reads.count("Memory/Hub.md")  # a plan's check looks up as the call


async def test_many_relations_from_one_linked_entity_read_its_note_once_to_name_it(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(make_vault({"Memory/Ann.md": ANN, "Memory/Hub.md": HUB})) as vg:
        reads = counted_reads(monkeypatch)
        relations = [{"from": "[[Memory/Hub]]", "to": "Ann", "relationType": f"kind_{i}"} for i in range(100)]
        made = await vg.ok("create_relations", relations=relations)
        assert len(made["created"]) == 100 and {r["from"] for r in made["created"]} == {"Hub"}, made
        assert reads.count("Memory/Hub.md") <= 4, reads.count("Memory/Hub.md")  # named, then written: check and call
