"""A duplicate_entity merge ends with a `delete_entities` step; when that step deleted nothing of
what it named (its `missing` not empty: T1 s63 #9, the merged entity a Latin-1 note the name lookup
missed) the run was `done` and the finding `applied`, every observation then in both notes. The
step now passes `missing_ok: false`: a name that is no entity fails the step (note_not_found, nothing
deleted), so the run fails and the finding stays open, as for any failed step. Through the dispatch
chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

ZED = (
    '---\nname: Zed\nentityType: person\naliases: ["Zoé"]\ncreated: "2026-01-01T00:00:00Z"\n---\n'
    "## Observations\n- plays chess ^z1\n"
)
ZOE = "---\nname: Zoé\nentityType: person\n---\n## Observations\n- aime le café\n".encode("latin-1")


TITLED = "# Zoé\n\n## Observations\n- aime le café\n"  # no frontmatter: its name is its title, as the graph lists it


@pytest.mark.parametrize("zoe", [ZOE, TITLED], ids=["latin-1", "named-by-title"])
async def test_a_merge_deletes_the_merged_note(make_vault: Callable[..., Path], zoe: str | bytes) -> None:
    async with started(make_vault({"Home.md": "# Home\n", "Memory/Zed.md": ZED, "Memory/Zoe.md": zoe})) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        [found] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
        assert found["detail"]["keep"] == "Zed", found
        await vg.confirmed("apply_finding", finding_id=found["id"])
        assert not (vg.root / "Memory/Zoe.md").exists()  # merged: its note went to the trash
        graph = await vg.ok("read_memory_graph")
        assert [e["name"] for e in graph["entities"]] == ["Zed"], graph
        assert "aime le café" in (vg.root / "Memory/Zed.md").read_text(encoding="utf-8")


async def test_delete_entities_missing_ok_false_deletes_nothing_when_a_name_is_no_entity(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Memory/Zed.md": ZED})) as vg:
        error = await vg.err("delete_entities", "note_not_found", entityNames=["Zed", "Ghost"], missing_ok=False)
        assert error["details"]["missing"] == ["Ghost"], error
        assert (vg.root / "Memory/Zed.md").read_text() == ZED  # nothing deleted
        plan = {
            "goal": "merge",
            "steps": [
                {
                    "id": "move",
                    "tool": "add_observations",
                    "args": {"observations": [{"entityName": "Zed", "contents": ["likes tea"]}]},
                },
                {
                    "id": "remove",
                    "tool": "delete_entities",
                    "args": {"entityNames": ["Ghost"], "missing_ok": False},
                    "dependsOn": ["move"],
                },
            ],
        }
        # refused before any step runs (it ran its first step and failed at `remove` before s76)
        refused = await vg.err("execute_plan", "validation_error", plan=plan)  # deletes nothing: no human asked
        assert [(p["step"], p["code"]) for p in refused["details"]["problems"]] == [("remove", "note_not_found")]
        assert (vg.root / "Memory/Zed.md").read_text() == ZED  # not even the first step ran
        kept = await vg.confirmed("delete_entities", entityNames=["Zed", "Ghost"])  # the default: as before
        assert kept["deleted"] == ["Zed"] and kept["missing"] == ["Ghost"], kept


def _named(name: str, observation: str, created: str) -> str:
    return f'---\nname: "{name}"\nentityType: person\ncreated: "{created}"\n---\n## Observations\n- {observation}\n'


async def test_two_notes_with_one_name_get_no_merge_plan(make_vault: Callable[..., Path]) -> None:
    """Memory/A.md and Memory/B.md both `name: Ann`: the merge plan's add_observations and
    delete_entities both took `Ann`, which the name lookup found as B.md: B's fact was added to B
    itself and B went to the trash, A never got it; the finding was `applied`."""
    a = _named("Ann", "keeps bees", "2026-01-01T00:00:00Z")
    b = _named("Ann", "plays oboe", "2026-02-01T00:00:00Z")
    async with started(make_vault({"Home.md": "# Home\n", "Memory/A.md": a, "Memory/B.md": b})) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        [found] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
        assert found["paths"] == ["Memory/A.md", "Memory/B.md"] and found.get("plan") is None, found
        error = await vg.err("apply_finding", "validation_error", finding_id=found["id"])
        assert "no plan" in error["message"], error
        assert vg.read("Memory/A.md") == a and vg.read("Memory/B.md") == b  # both as they were
