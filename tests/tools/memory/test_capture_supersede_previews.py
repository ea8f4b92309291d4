"""What supersede_observation and process_capture will change is named before they run: a plan's
effects (what validate_plan shows, what a human approving it reads) and a dry-run vault's preview
list exactly the notes the calls then change — the entity note, the inbox, the note filed into."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

GAIL = "---\nname: Gail\nentityType: person\n---\n# Gail\n\n## Observations\n"
GAIL += "- Lives in Oslo ^o1\n- Lives in Bergen ^o2\n"
VAULT = {"Home.md": "# Home\n", "Notes/Log.md": "# Log\n", "Memory/Gail.md": GAIL}
SUPERSEDE = {"entityName": "Gail", "observation": "Lives in Oslo", "superseded_by": "Lives in Bergen"}


def notes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.md") if ".trash" not in p.parts}


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    return sorted(p for p in after if before.get(p) != after[p]) + sorted(before.keys() - after.keys())


def named(effects: dict[str, Any]) -> list[str]:
    return sorted({*effects["files_created"], *effects["files_modified"], *effects["files_deleted"]})


@pytest.mark.parametrize(
    ("action", "target"),
    [("entity", "Gail"), ("note", "Notes/Log"), ("new_note", "Ideas/Tea"), ("discard", None)],
)
async def test_a_plan_names_the_notes_superseding_and_filing_change(
    make_vault: Callable[..., Path], action: str, target: str | None
) -> None:
    root = make_vault(VAULT)
    async with started(root) as vg:
        made = await vg.ok("capture", text="Gail likes tea")
        filing: dict[str, Any] = {"capture_id": made["id"], "action": action}
        if target is not None:
            filing["target"] = target
        steps = [
            {"id": "sup", "tool": "supersede_observation", "args": SUPERSEDE},
            {"id": "file", "tool": "process_capture", "args": filing},
        ]
        plan = {"goal": "tidy Gail", "steps": steps}
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        before = notes(root)
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run
    assert effects["bulk_changes"] == [] and effects["unresolved"] == []
    assert named(effects) == changed(before, notes(root))


async def test_a_dry_run_vault_previews_supersede_observation_as_the_entity_note(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(VAULT)
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        effects = (await vg.ok("supersede_observation", **SUPERSEDE))["effects"]
    assert named(effects) == ["Memory/Gail.md"] and "Lives in Oslo ^o1" in (root / "Memory/Gail.md").read_text()
