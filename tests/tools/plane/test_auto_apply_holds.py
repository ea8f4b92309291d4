"""`[plane] auto_apply` applies a finding only while it holds: an observation a duplicate keeps that
was deleted between the job that found the pair and the apply (another agent, a person in
Obsidian) leaves the duplicate in place (its plan would delete the last copy of the fact)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from tests.conftest import started

NOTE = (
    "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n"
    "- Owns 2 cars ^m-a\n- Owns two cars ^m-b\n- Likes tea ^m-c\n- likes tea. ^m-d\n"
)


class Writer:
    """Stands for someone writing the note while the run is going: deletes the first 'Owns' line."""

    name = "writer"
    needs: tuple[Need, ...] = ("memory",)

    def __init__(self, note: Path) -> None:
        self.note = note

    async def run(self, ctx: JobContext) -> list[Finding]:
        text = self.note.read_text(encoding="utf-8")
        self.note.write_text(text.replace("- Owns 2 cars ^m-a\n", ""), encoding="utf-8")
        return []


async def test_auto_apply_leaves_a_finding_that_no_longer_holds(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Memory/Ann.md": NOTE})
    async with started(root, plane={"auto_apply": ["duplicate", "near_duplicate"]}) as vg:
        vg.app.plane.jobs = (*vg.app.plane.jobs, Writer(root / "Memory" / "Ann.md"))
        run = await vg.ok("run_consolidation", wait=True, jobs=["duplicates", "writer"])
        assert len(run["auto_applied"]) == 1  # the exact duplicate, whose pair is untouched
        text = (root / "Memory" / "Ann.md").read_text(encoding="utf-8")
        assert "Owns two cars" in text and "likes tea." not in text and "Likes tea" in text
        near = (await vg.ok("list_findings", kind="near_duplicate"))["items"]
        assert [f["status"] for f in near] == ["open"]
