"""A superseded observation through the dispatch chain: supersede_observation refuses a cycle (T1
item 11), and open_nodes / search_memory tell a superseded fact from the current one — its
`valid_until` and `superseded_by` — and search_memory ranks it after the current ones (T1 item 10)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, started


async def gail(vg: Harness, *places: str) -> None:
    await vg.ok("create_entities", entities=[{"name": "Gail", "entityType": "person", "observations": []}])
    for when, place in zip(("2024-01-10", "2025-06-01", "2026-02-01"), places, strict=False):
        await vg.ok("add_observations", observations=[{"entityName": "Gail", "contents": [place], "date": when}])


async def test_a_supersession_cycle_is_refused(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        await gail(vg, "Lives in Oslo", "Lives in Bergen", "Lives in Tromso")
        await vg.ok(
            "supersede_observation", entityName="Gail", observation="Lives in Oslo", superseded_by="Lives in Bergen"
        )
        before = vg.read("Memory/Gail.md")
        refused = await vg.err(
            "supersede_observation",
            "validation_error",
            entityName="Gail",
            observation="Lives in Bergen",
            superseded_by="Lives in Oslo",
        )
        assert refused["details"]["field"] == "superseded_by"
        await vg.ok(
            "supersede_observation", entityName="Gail", observation="Lives in Bergen", superseded_by="Lives in Tromso"
        )
        await vg.err(  # a longer cycle: Oslo -> Bergen -> Tromso -> Oslo
            "supersede_observation",
            "validation_error",
            entityName="Gail",
            observation="Lives in Tromso",
            superseded_by="Lives in Oslo",
        )
        assert "Lives in Tromso" in vg.read("Memory/Gail.md") and before.count("superseded_by") == 1
        tromso = [line for line in vg.read("Memory/Gail.md").splitlines() if "Tromso" in line]
        assert tromso and "superseded_by" not in tromso[0]  # a current fact is left


async def test_a_superseded_fact_is_marked_and_ranked_after_the_current_one(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        await gail(vg, "Lives in Oslo", "Lives in Bergen")
        done = await vg.ok(
            "supersede_observation",
            entityName="Gail",
            observation="Lives in Oslo",
            superseded_by="Lives in Bergen",
            valid_until="2025-06-01",
        )
        [entity] = (await vg.ok("open_nodes", names=["Gail"]))["entities"]
        by_text = {o["text"]: o for o in entity["observations"]}
        assert by_text["Lives in Oslo"]["valid_until"] == "2025-06-01"
        assert (
            by_text["Lives in Oslo"]["superseded_by"] == done["superseded_by"] == by_text["Lives in Bergen"]["block_id"]
        )
        assert by_text["Lives in Bergen"]["valid_until"] is None and by_text["Lives in Bergen"]["superseded_by"] is None
        hits = (await vg.ok("search_memory", query="Gail lives in Oslo"))["items"]
        assert [h["text"] for h in hits] == ["Lives in Bergen", "Lives in Oslo"]  # the current fact first
        assert (
            hits[1]["superseded_by"] == by_text["Lives in Bergen"]["block_id"]
            and hits[1]["valid_until"] == "2025-06-01"
        )
        assert hits[0]["superseded_by"] is None


async def test_the_caller_who_recorded_a_fact_is_in_the_read_tools(make_vault: Callable[..., Path]) -> None:
    """Provenance "by which caller — hashed —" (issue 37): the `by` stored on the line is returned."""
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        await gail(vg, "Lives in Oslo")
        line = next(x for x in vg.read("Memory/Gail.md").splitlines() if "Oslo" in x)
        by = line.split("[by:: ", 1)[1].split("]", 1)[0]
        [entity] = (await vg.ok("open_nodes", names=["Gail"]))["entities"]
        assert [o["by"] for o in entity["observations"]] == [by]
        [hit] = (await vg.ok("search_memory", query="Gail lives in Oslo"))["items"]
        assert hit["by"] == by and len(by) == 8
