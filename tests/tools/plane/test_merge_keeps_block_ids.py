"""A duplicate_entity merge carries the merged entity's observation lines as written (M6 s72): it
re-added them through add_observations, with new block ids, the applier's `by` and the merge day
as `recorded`, so the plan's rewrite_links turned `[[Ann Lees#^m-old]]` into `[[Ann Lee#^m-old]]`,
a block no longer anywhere (find_broken_links: no_block), and who recorded each fact was lost.
Now merge_observations copies each line (block id, by, recorded, superseded_by, other fields);
a block id the kept note already uses for another fact refuses the merge, nothing written (a
copy under another id left `[[Ann Lees#^id]]`, once repointed, on the kept note's other fact)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

ANN = "---\nname: Ann Lee\nentityType: person\n---\n# Ann Lee\n\n## Observations\n- Paints ^m-p\n- Has a cat ^m-c\n"
RAN = "- Ran a 5k [recorded:: 2025-01-03] [by:: 0badc0de] [superseded_by:: ^m-a] [valid_until:: 2025-06-01] ^m-r"
RUNS = "- [sport] Runs marathons [recorded:: 2025-06-02] [by:: 0badc0de] [source:: [[Trip]]] [date:: 2025-06-01] ^m-a"
LEES = (
    "---\nname: Ann Lees\nentityType: person\n---\n# Ann Lees\n\n## Observations\n"
    "- Lives in Oslo [recorded:: 2024-11-20] [by:: 1234abcd] [mood:: sure] ^m-oslo\n"
    f"{RAN}\n{RUNS}\n- Has a cat ^m-c\n- Hand-written line, no id\n"
)
TRIP = "# Trip\n\nSee [[Ann Lees#^m-oslo]] and ![[Memory/Ann Lees#^m-r]], [[Ann Lees#^m-a|runs]].\n"


async def merge(vg: Harness) -> dict[str, Any]:
    await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
    [found] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
    assert found["detail"] == {"keep": "Ann Lee", "merge": "Ann Lees", "observations": 5}
    preview = await vg.ok("apply_finding", finding_id=found["id"], dry_run=True)
    assert "Memory/Ann Lee.md" in preview["run"]["effects"]["files_modified"]
    applied = await vg.confirmed("apply_finding", finding_id=found["id"])
    assert applied["status"] == "applied" and not (vg.root / "Memory/Ann Lees.md").exists()
    return applied


def vault() -> dict[str, str]:
    return {"Memory/Ann Lee.md": ANN, "Memory/Ann Lees.md": LEES, "Notes/Trip.md": TRIP}


async def test_links_to_merged_blocks_land_and_provenance_is_kept(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(vault())) as vg:
        await merge(vg)
        await vg.settled()
        kept = vg.read("Memory/Ann Lee.md")
        # as written: by, recorded, other fields, category, block id; the line it had already once
        assert "- Lives in Oslo [recorded:: 2024-11-20] [by:: 1234abcd] [mood:: sure] ^m-oslo\n" in kept
        assert "- Hand-written line, no id\n" in kept and kept.count("Has a cat") == 1
        assert "- Paints ^m-p\n" in kept and RUNS in kept and RAN in kept
        trip = "# Trip\n\nSee [[Ann Lee#^m-oslo]] and ![[Memory/Ann Lee#^m-r]], [[Ann Lee#^m-a|runs]].\n"
        assert vg.read("Notes/Trip.md") == trip
        links = (await vg.ok("get_outlinks", path="Notes/Trip.md"))["items"]
        assert {link["path"] for link in links} == {"Memory/Ann Lee.md"}, links
        assert (await vg.ok("find_broken_links"))["items"] == []
        [ann] = (await vg.ok("open_nodes", names=["Ann Lee"]))["entities"]
        seen = {o["block_id"]: o for o in ann["observations"]}
        assert seen["m-oslo"]["by"] == "1234abcd" and seen["m-oslo"]["recorded"] == "2024-11-20"
        assert seen["m-r"]["superseded_by"] == "m-a" and seen["m-r"]["valid_until"] == "2025-06-01"
        assert seen["m-a"]["text"] == "Runs marathons" and seen["m-a"]["superseded_by"] is None


async def test_undoing_the_merge_puts_every_byte_back(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(vault())) as vg:
        before = vg.snapshot()
        applied = await merge(vg)
        await vg.confirmed("undo_last_plan", run_id=applied["run"]["run_id"])
        assert vg.snapshot() == before


@pytest.mark.covers("merge_observations", "failure")
async def test_the_tool_takes_two_entity_names_only(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(vault())) as vg:
        before = vg.snapshot()
        await vg.err("merge_observations", "validation_error", entityName="Ann Lee", mergedName="Ann Lee")
        await vg.err("merge_observations", "note_not_found", entityName="Ann Lee", mergedName="Nobody")
        await vg.err("merge_observations", "note_not_found", entityName="Nobody", mergedName="Ann Lees")
        await vg.err("merge_observations", "validation_error", entityName="Ann Lee", mergedName="x", by="00000000")
        assert vg.snapshot() == before


@pytest.mark.covers("merge_observations", "success")
async def test_the_tool_copies_once(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(vault())) as vg:
        first = await vg.ok("merge_observations", entityName="Ann Lee", mergedName="Ann Lees")
        assert first["copied"] == 4 and first["already_there"] == 1
        assert first["block_ids"] == ["m-oslo", "m-r", "m-a", ""]
        once = vg.read("Memory/Ann Lee.md")
        again = await vg.ok("merge_observations", entityName="Ann Lee", mergedName="Ann Lees")
        assert again["copied"] == 0 and again["already_there"] == 5
        assert vg.read("Memory/Ann Lee.md") == once


@pytest.mark.covers("merge_observations", "failure")
async def test_a_block_id_the_kept_note_uses_for_another_fact_refuses_the_merge(
    make_vault: Callable[..., Path],
) -> None:
    """`^m-a` is Paints in the kept note and Runs marathons in the merged one: a copy under
    `^m-a-2` left `[[Ann Lees#^m-a|runs]]`, once repointed, on Paints. Refused, nothing written;
    the duplicate finding's plan is refused at that step before it runs and before a human is asked
    (s79: validate_plan foresees block_id_taken; before, the run stopped at the step)."""
    files = vault() | {"Memory/Ann Lee.md": ANN.replace("^m-p", "^M-A")}  # ids compare in any case
    async with started(make_vault(files)) as vg:
        before = vg.snapshot()
        err = await vg.err("merge_observations", "validation_error", entityName="Ann Lee", mergedName="Ann Lees")
        assert err["details"]["reason"] == "block_id_taken" and err["details"]["block_ids"] == ["m-a"]
        assert "rename" in err["hint"]
        assert vg.snapshot() == before
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        [found] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
        refused = await vg.err("apply_finding", "conflict", finding_id=found["id"])
        [move] = [p for p in refused["details"]["problems"] if p.get("step") == "move"]
        assert (move["code"], move["details"], move["hint"]) == ("validation_error", err["details"], err["hint"]), move
        assert vg.changed_since(before) == set()
