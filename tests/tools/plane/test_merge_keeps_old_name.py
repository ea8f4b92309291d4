"""A merged entity's name stays a name of the entity kept (M5 s72): after the duplicates job's
duplicate_entity merge, open_nodes and search_memory of the merged-away name answered `missing`
and nothing, add_observations of it note_not_found, and create_entities of it made the duplicate
again. The merge now adds the name (and its aliases) to the kept entity's `aliases`, and the
memory tools find an entity by an alias when no note has the name (never to delete it)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, started

TRIP = "Met [[Ann Lees]] and [[Memory/Ann Lees|her]] ([[Ann Lees#Observations]]).\n"


async def two_anns(vg: Harness) -> None:
    """Ann Lee (aliases: Annie) and the later Ann Lees."""
    await vg.ok("create_entities", entities=[{"name": "Ann Lee", "entityType": "person", "observations": ["Paints"]}])
    await vg.ok("set_properties", path="Memory/Ann Lee.md", properties={"aliases": ["Annie"]})
    await vg.ok("create_entities", entities=[{"name": "Ann Lees", "entityType": "person", "observations": []}])
    await vg.ok("add_observations", observations=[{"entityName": "Ann Lees", "contents": ["Runs marathons"]}])


async def merged(vg: Harness) -> str:
    """The two Anns merged by the duplicates job's finding; the plan's run id."""
    await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
    [found] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
    assert found["detail"]["keep"] == "Ann Lee"
    alias = next(s for s in found["plan"]["steps"] if s["id"] == "alias")
    assert alias["args"] == {"path": "Memory/Ann Lee.md", "properties": {"aliases": ["Annie", "Ann Lees"]}}
    applied = await vg.confirmed("apply_finding", finding_id=found["id"])
    assert applied["status"] == "applied" and not (vg.root / "Memory/Ann Lees.md").exists()
    return str(applied["run"]["run_id"])


async def test_the_merged_name_still_opens_and_recalls_the_entity_kept(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n", "Notes/Trip.md": TRIP})) as vg:
        await two_anns(vg)
        await merged(vg)
        opened = await vg.ok("open_nodes", names=["Ann Lees"])
        assert opened["missing"] == [] and [e["name"] for e in opened["entities"]] == ["Ann Lee"]
        assert {o["text"] for o in opened["entities"][0]["observations"]} == {"Paints", "Runs marathons"}
        hits = (await vg.ok("search_memory", query="Ann Lees"))["items"]
        assert {h["entity"] for h in hits} == {"Ann Lee"} and len(hits) == 2
        # a write by the old name reaches the entity kept; creating it again makes no duplicate
        await vg.ok("add_observations", observations=[{"entityName": "Ann Lees", "contents": ["Has a cat"]}])
        assert "- Has a cat" in vg.read("Memory/Ann Lee.md")
        again = await vg.ok("create_entities", entities=[{"name": "Ann Lees", "entityType": "person"}])
        assert again == {"created": [], "existing": ["Ann Lees"], "truncated": False}
        assert sorted(p.name for p in (vg.root / "Memory").iterdir()) == ["Ann Lee.md"]
        # an alias never sends the entity it names to the trash
        gone = await vg.ok("delete_entities", entityNames=["Ann Lees"])
        assert gone["deleted"] == [] and gone["missing"] == ["Ann Lees"]
        assert (vg.root / "Memory/Ann Lee.md").exists()
        front = vg.read("Memory/Ann Lee.md").split("---")[1]
        assert re.search(r"aliases:.*Annie.*Ann Lees", front, re.S), front


async def test_links_to_the_merged_note_resolve_as_obsidian_resolves_them(make_vault: Callable[..., Path]) -> None:
    """Obsidian does not resolve `[[Ann Lees]]` by an alias (it writes `[[Ann Lee|Ann Lees]]` when
    one is picked): the links are rewritten to the note kept, so none is left broken."""
    async with started(make_vault({"Home.md": "# Home\n", "Notes/Trip.md": TRIP})) as vg:
        await two_anns(vg)
        await merged(vg)
        await vg.settled()
        trip = vg.read("Notes/Trip.md")
        assert "Ann Lees]]" not in trip and "Memory/Ann Lees" not in trip, trip
        links = (await vg.ok("get_outlinks", path="Notes/Trip.md"))["items"]
        assert {link["path"] for link in links} == {"Memory/Ann Lee.md"}, links
        assert (await vg.ok("find_broken_links"))["items"] == []


async def test_undoing_the_merge_gives_the_name_its_own_note_again(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n", "Notes/Trip.md": TRIP})) as vg:
        await two_anns(vg)
        before = vg.snapshot()
        await vg.confirmed("undo_last_plan", run_id=await merged(vg))
        assert vg.snapshot() == before
        opened = await vg.ok("open_nodes", names=["Ann Lees"])
        assert [e["name"] for e in opened["entities"]] == ["Ann Lees"]


async def test_an_alias_two_entities_share_names_neither(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        people = [{"name": n, "entityType": "person", "observations": ["Here"]} for n in ("Sam Reed", "Sam Cole")]
        await vg.ok("create_entities", entities=people)
        await vg.ok("set_properties", path="Memory/Sam Cole.md", properties={"aliases": ["Sam"]})
        assert [e["name"] for e in (await vg.ok("open_nodes", names=["Sam"]))["entities"]] == ["Sam Cole"]
        await vg.ok("set_properties", path="Memory/Sam Reed.md", properties={"aliases": ["Sam"]})
        assert (await vg.ok("open_nodes", names=["Sam"]))["missing"] == ["Sam"]  # which one: not guessed
