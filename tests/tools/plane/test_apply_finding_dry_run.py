"""apply_finding previews: `dry_run: true` (and any call in a `write_mode = "dry-run"` vault) checks the
finding as applying it would and answers its plan's effects — the files applying then changes —
without claiming the finding or changing a file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

NOTE = (
    "---\nname: Zed\nentityType: person\n---\n# Zed\n\n## Observations\n"
    "- Owns 2 cars [date:: 2020-01-01] ^m-a\n- Owns two cars [date:: 2021-01-01] ^m-b\n"
)
FILES = {"Home.md": "# Home\n\n[[Zeds]] and [[Memory/Zed]]\n", "Memory/Zed.md": NOTE}
FILES["Memory/Zeds.md"] = "---\nname: Zeds\nentityType: person\n---\n# Zeds\n\n## Observations\n- Plays go ^m-e\n"


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.md") if ".vaultgate" not in p.parts}


def named(effects: dict[str, Any]) -> set[str]:
    return {*effects["files_created"], *effects["files_modified"], *effects["files_deleted"]}


async def test_a_dry_run_names_the_files_applying_changes(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root, confirmation={"enabled": False}) as vg:
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        found = {f["kind"]: f for f in (await vg.ok("list_findings", limit=50))["items"]}
        near = found["near_duplicate"]
        before = files(root)
        preview = await vg.ok("apply_finding", finding_id=near["id"], dry_run=True)
        assert preview["status"] == "dry-run" and files(root) == before
        assert named(preview["run"]["effects"]) == {"Memory/Zed.md"}
        assert (await vg.ok("list_findings", limit=50))["total"] == 2  # both still open
        await vg.ok("apply_finding", finding_id=near["id"])
        after = files(root)
        assert {p for p in before if before[p] != after.get(p)} == {"Memory/Zed.md"}
        await vg.err("apply_finding", "conflict", finding_id=near["id"], dry_run=True)  # applied already


async def test_a_dry_run_vault_previews_apply_finding(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        merge = [f for f in (await vg.ok("list_findings", limit=50))["items"] if f["kind"] == "duplicate_entity"][0]
        before = files(root)
        preview = await vg.ok("apply_finding", finding_id=merge["id"])
        assert preview["status"] == "dry-run" and files(root) == before
        assert {"Memory/Zeds.md", "Memory/Zed.md"} <= named(preview["run"]["effects"])
