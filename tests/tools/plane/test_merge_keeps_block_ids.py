"""A duplicate_entity merge carries the merged entity's observation lines as written (M6 s72): it
re-added them through add_observations, with new block ids, the applier's `by` and the merge day
as `recorded`, so the plan's rewrite_links turned `[[Ann Lees#^m-old]]` into `[[Ann Lee#^m-old]]`,
a block no longer anywhere (find_broken_links: no_block), and who recorded each fact was lost.
Now merge_observations copies each line (block id, by, recorded, superseded_by, other fields);
a block id the kept note already uses becomes `<id>-2`, its pointers following."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

ANN = "---\nname: Ann Lee\nentityType: person\n---\n# Ann Lee\n\n## Observations\n- Paints ^m-a\n- Has a cat ^m-c\n"
RAN = "- Ran a 5k [recorded:: 2025-01-03] [by:: 0badc0de] [superseded_by:: ^m-a] [valid_until:: 2025-06-01] ^m-r"
RUNS = "- [sport] Runs marathons [recorded:: 2025-06-02] [by:: 0badc0de] [source:: [[Trip]]] [date:: 2025-06-01] ^m-a"
LEES = (
    "---\nname: Ann Lees\nentityType: person\n---\n# Ann Lees\n\n## Observations\n"
    "- Lives in Oslo [recorded:: 2024-11-20] [by:: 1234abcd] [mood:: sure] ^m-oslo\n"
    f"{RAN}\n{RUNS}\n- Has a cat ^m-c\n- Hand-written line, no id\n"
)
TRIP = "# Trip\n\nSee [[Ann Lees#^m-oslo]] and ![[Memory/Ann Lees#^m-r]].\n"


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
        # ^m-a was Paints' already: the merged one is ^m-a-2, and the pointer to it follows
        assert "- Paints ^m-a\n" in kept and RUNS.replace("^m-a", "^m-a-2") in kept
        assert RAN.replace("^m-a]", "^m-a-2]") in kept
        assert vg.read("Notes/Trip.md") == "# Trip\n\nSee [[Ann Lee#^m-oslo]] and ![[Memory/Ann Lee#^m-r]].\n"
        links = (await vg.ok("get_outlinks", path="Notes/Trip.md"))["items"]
        assert {link["path"] for link in links} == {"Memory/Ann Lee.md"}, links
        assert (await vg.ok("find_broken_links"))["items"] == []
        [ann] = (await vg.ok("open_nodes", names=["Ann Lee"]))["entities"]
        seen = {o["block_id"]: o for o in ann["observations"]}
        assert seen["m-oslo"]["by"] == "1234abcd" and seen["m-oslo"]["recorded"] == "2024-11-20"
        assert seen["m-r"]["superseded_by"] == "m-a-2" and seen["m-r"]["valid_until"] == "2025-06-01"
        assert seen["m-a-2"]["text"] == "Runs marathons" and seen["m-a-2"]["superseded_by"] is None


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
        assert first["block_ids"] == ["m-oslo", "m-r", "m-a-2", ""]
        assert first["renamed"] == [{"old": "m-a", "new": "m-a-2"}]
        once = vg.read("Memory/Ann Lee.md")
        again = await vg.ok("merge_observations", entityName="Ann Lee", mergedName="Ann Lees")
        assert again["copied"] == 0 and again["already_there"] == 5 and again["renamed"] == []
        assert vg.read("Memory/Ann Lee.md") == once
