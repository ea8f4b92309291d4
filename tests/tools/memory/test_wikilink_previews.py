"""A memory tool given an entity as the `[[wikilink]]` of its note (db8985e) changes that note, and
its previews say so: a plan's effects (validate_plan) and a dry-run vault's preview name the
entity's note, not a note named after the link's brackets (`Memory/~5B~5BZed~5D~5D.md`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

ZED = "---\nname: Zed\nentityType: person\n---\n# Zed\n\n## Observations\n- Lives in Oslo ^o1\n"
VAULT = {"Home.md": "# Home\n", "Memory/Zed.md": ZED}


def notes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.md") if ".trash" not in p.parts}


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    return sorted(p for p in after if before.get(p) != after[p]) + sorted(before.keys() - after.keys())


def named(effects: dict[str, Any]) -> list[str]:
    return sorted({*effects["files_created"], *effects["files_modified"], *effects["files_deleted"]})


async def test_a_plan_names_the_entity_note_a_wikilink_argument_changes(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    steps = [
        {
            "id": "obs",
            "tool": "add_observations",
            "args": {"observations": [{"entityName": "[[Zed]]", "contents": ["Lives in Bergen"]}]},
        },
        {"id": "key", "tool": "memory_store", "args": {"key": "[[Memory/Zed.md|Z]]", "value": "Rent due on the 3rd"}},
        {
            "id": "sup",
            "tool": "supersede_observation",
            "args": {
                "entityName": "[[Zed#Observations]]",
                "observation": "Lives in Oslo",
                "superseded_by": "Lives in Bergen",
            },
        },
    ]
    plan = {"goal": "tidy Zed", "steps": steps}
    async with started(root) as vg:
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        before = notes(root)
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run
    assert changed(before, notes(root)) == ["Memory/Zed.md"]
    assert named(effects) == ["Memory/Zed.md"], effects


async def test_a_dry_run_vault_previews_a_wikilink_entity_as_its_note(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        stored = (await vg.ok("memory_store", key="[[Zed]]", value="Rent due on the 3rd"))["effects"]
        added = await vg.ok("add_observations", observations=[{"entityName": "[[Zed|him]]", "contents": ["Tea"]}])
    assert stored["files_created"] == [] and stored["files_modified"] == ["Memory/Zed.md"]
    assert named(added["effects"]) == ["Memory/Zed.md"]
    assert notes(root)["Memory/Zed.md"].decode() == ZED


async def test_a_wikilink_to_no_note_previews_the_entity_it_spells(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        stored = (await vg.ok("memory_store", key="[[Ann Lee]]", value="Likes tea"))["effects"]
    assert stored["files_created"] == ["Memory/Ann Lee.md"]
