"""delete_observations of a fact that supersedes another, through the dispatch chain: the older
fact's `superseded_by` named the deleted one and was left pointing at nothing (the older fact
stayed history, superseded by no fact, and no current fact was left). It is mended in the same
write: superseded by the deleted one's own successor, or current again; the answer says which."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.types import Principal
from tests.conftest import Harness, started

NOTE = "Memory/Gail.md"


async def gail(vg: Harness, *places: str) -> dict[str, str]:
    """Gail with one observation per place, each superseding the one before; block ids by text."""
    await vg.ok("create_entities", entities=[{"name": "Gail", "entityType": "person", "observations": []}])
    for place in places:
        await vg.ok("add_observations", observations=[{"entityName": "Gail", "contents": [place]}])
    for older, newer in zip(places, places[1:], strict=False):
        await vg.ok(
            "supersede_observation", entityName="Gail", observation=older, superseded_by=newer, valid_until="2025"
        )
    return await ids(vg)


async def ids(vg: Harness) -> dict[str, str]:
    [entity] = (await vg.ok("open_nodes", names=["Gail"]))["entities"]
    return {o["text"]: o["block_id"] for o in entity["observations"]}


async def facts(vg: Harness) -> dict[str, tuple[Any, Any]]:
    [entity] = (await vg.ok("open_nodes", names=["Gail"]))["entities"]
    return {o["text"]: (o["superseded_by"], o["valid_until"]) for o in entity["observations"]}


async def test_deleting_the_newer_fact_makes_the_older_one_current_again(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        block = await gail(vg, "Lives in Oslo", "Lives in Bergen")
        out = await vg.ok(
            "delete_observations", deletions=[{"entityName": "Gail", "observations": ["Lives in Bergen"]}]
        )
        assert out["deleted"] == 1
        assert out["history_mended"] == [
            {"entityName": "Gail", "block_id": block["Lives in Oslo"], "text": "Lives in Oslo", "superseded_by": None}
        ]
        assert await facts(vg) == {"Lives in Oslo": (None, None)}
        assert "superseded_by" not in vg.read(NOTE) and "valid_until" not in vg.read(NOTE)
        assert f"^{block['Lives in Oslo']}" in vg.read(NOTE)  # the same block: links to it still resolve
        hits = (await vg.ok("search_memory", query="Where does Gail live? Oslo"))["items"]
        assert [(h["text"], h["superseded_by"]) for h in hits] == [("Lives in Oslo", None)]


async def test_a_deleted_link_of_a_chain_is_bridged_to_its_successor(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        block = await gail(vg, "Lives in Oslo", "Lives in Bergen", "Lives in Tromso")
        by_id = f"^{block['Lives in Bergen']}"
        out = await vg.ok("delete_observations", deletions=[{"entityName": "Gail", "observations": [by_id]}])
        assert [(m["text"], m["superseded_by"]) for m in out["history_mended"]] == [
            ("Lives in Oslo", block["Lives in Tromso"])
        ]
        assert await facts(vg) == {
            "Lives in Oslo": (block["Lives in Tromso"], "2025"),  # still history, until when it held kept
            "Lives in Tromso": (None, None),
        }


async def test_deleting_a_whole_chain_or_only_history_mends_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        await gail(vg, "Lives in Oslo", "Lives in Bergen", "Lives in Tromso")
        out = await vg.ok(
            "delete_observations",
            deletions=[{"entityName": "Gail", "observations": ["Lives in Oslo", "Lives in Bergen"]}],
        )
        assert out["deleted"] == 2 and out["history_mended"] == []
        assert await facts(vg) == {"Lives in Tromso": (None, None)}


async def test_a_plan_deleting_the_newer_fact_is_undone_byte_for_byte(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        await gail(vg, "Lives in Oslo", "Lives in Bergen")
        before = vg.read(NOTE)
        step = {"deletions": [{"entityName": "Gail", "observations": ["Lives in Bergen"]}]}
        plan = {"goal": "retract Bergen", "steps": [{"id": "d", "tool": "delete_observations", "args": step}]}
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert await facts(vg) == {"Lives in Oslo": (None, None)}
        await vg.confirmed("undo_last_plan")
        assert vg.read(NOTE) == before  # the deletion and the mended pointer come back together


async def test_another_agents_writes_at_the_same_time_leave_no_dangling_pointer(
    make_vault: Callable[..., Path],
) -> None:
    """Bob adds a fact and supersedes Oslo by Bergen while Alice deletes Bergen: group-committed
    or one after the other, each change applies to the note as it is. Either Bob's supersession
    came first (Alice's delete mends it) or it finds Bergen gone (note_not_found): never a pointer
    to nothing, and Bob's fact is kept."""
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        bob = Principal.local("bob")
        for _ in range(5):
            await gail(vg, "Lives in Oslo", "Lives in Bergen")
            await vg.ok("delete_observations", deletions=[{"entityName": "Gail", "observations": ["Lives in Oslo"]}])
            await vg.ok("add_observations", observations=[{"entityName": "Gail", "contents": ["Lives in Oslo"]}])
            again = {"entityName": "Gail", "observation": "Lives in Oslo", "superseded_by": "Lives in Bergen"}
            deletion = {"entityName": "Gail", "observations": ["Lives in Bergen"]}
            added = {"entityName": "Gail", "contents": ["Likes skiing"]}
            superseded, deleted, _ = await asyncio.gather(
                vg.app.dispatcher.call("supersede_observation", again, principal=bob),
                vg.call("delete_observations", deletions=[deletion]),
                vg.app.dispatcher.call("add_observations", {"observations": [added]}, principal=bob),
            )
            assert deleted.structured is not None and not deleted.is_error
            if superseded.is_error:
                assert superseded.structured is not None
                assert superseded.structured["error"]["code"] == "note_not_found"
                assert deleted.structured["history_mended"] == []
            else:
                assert [m["text"] for m in deleted.structured["history_mended"]] == ["Lives in Oslo"]
            assert await facts(vg) == {"Lives in Oslo": (None, None), "Likes skiing": (None, None)}
            await vg.confirmed("delete_entities", entityNames=["Gail"])
