"""create_relations and delete_relations list the memory folder once a call, however many of their
targets no entity's file name spells (A4 s95), through the dispatch chain. Each such target (an
ordinary note, an entity renamed by hand) was looked up among the folder's notes alone: a
listing that stats every note, on the event loop, once per relation — with 5,000 entity notes,
1,000 relations to ordinary notes held the loop 44 s (181 s before the ACL was asked only about
the notes that name it). Now one call's lookups share one listing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.memory import lookup
from tests.conftest import started


def entity(name: str) -> str:
    return f"---\nname: {name}\nentityType: person\n---\n# {name}\n\n## Observations\n- Is here\n"


async def test_one_listing_a_call_whatever_its_targets(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"Memory/E{i}.md": entity(f"E{i}") for i in range(50)}
    files |= {f"Notes/N{i}.md": f"# N{i}\n" for i in range(100)}
    files["Memory/Renamed.md"] = entity("Ann Lee")  # renamed by hand: found by its name
    async with started(make_vault(files)) as vg:
        await vg.settled()
        listings: list[str] = []
        real = lookup._listed  # one call a listing of the folder

        def counting(*args: Any) -> Any:
            listings.append(args[2])
            return real(*args)

        monkeypatch.setattr(lookup, "_listed", counting)
        relations = [{"from": "Ann Lee", "to": f"N{i}", "relationType": "mentions"} for i in range(100)]
        made = await vg.ok("create_relations", relations=relations)
        assert len(made["created"]) == 100 and {r["from"] for r in made["created"]} == {"Ann Lee"}
        assert len(listings) <= 4, len(listings)  # the check's and the call's (and their writes')
        listings.clear()
        gone = await vg.ok("delete_relations", relations=relations)
        assert gone["deleted"] == 100
        assert len(listings) <= 4, len(listings)
        assert "- mentions [[Notes/N99]]" not in vg.read("Memory/Renamed.md")


async def test_add_and_delete_observations_list_once_a_call(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """add_observations and delete_observations name up to 100 entities a call: each one whose file
    name does not spell it (renamed by hand) was a listing of its own (A4 s95's leftover)."""
    files = {f"Memory/R{i}.md": entity(f"Person {i}") for i in range(40)}
    async with started(make_vault(files)) as vg:
        await vg.settled()
        listings: list[str] = []
        real = lookup._listed

        def counting(*args: Any) -> Any:
            listings.append(args[2])
            return real(*args)

        monkeypatch.setattr(lookup, "_listed", counting)
        batches = [{"entityName": f"Person {i}", "contents": ["Likes tea"]} for i in range(40)]
        added = await vg.ok("add_observations", observations=batches)
        assert [r["addedObservations"] for r in added["results"]] == [["Likes tea"]] * 40, added
        assert len(listings) <= 4, len(listings)
        listings.clear()
        deletions = [{"entityName": f"Person {i}", "observations": ["Likes tea"]} for i in range(40)]
        gone = await vg.ok("delete_observations", deletions=deletions)
        assert gone["deleted"] == 40, gone
        assert len(listings) <= 4, len(listings)
        assert "Likes tea" not in vg.read("Memory/R7.md")
