"""apply_finding after another agent moved, renamed or deleted the note the finding is about: a
structured `conflict`, nothing changed, the finding open — and the message says the note is no
longer there, not that it "changed" (it told a caller looking at the note's path for an edit
that never happened). Found driving the plane with two agents on a real server (B2 s77)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import snapshot, started

CY = (
    "---\nname: Cy\nentityType: person\n---\n# Cy\n\n## Observations\n"
    "- Works at Acme [date:: 2021-01-01] ^m-1\n- Works at Globex [date:: 2023-01-01] ^m-2\n"
)


@pytest.mark.parametrize("how", ["moved", "deleted"])
async def test_a_finding_whose_note_went_is_a_conflict_saying_so(make_vault: Callable[..., Path], how: str) -> None:
    async with started(make_vault({"Memory/Cy.md": CY, "Home.md": "# Home\n"})) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["contradictions"])
        [found] = (await vg.ok("list_findings", kind="contradiction"))["items"]
        if how == "moved":
            await vg.confirmed("move_note", path="Memory/Cy.md", new_path="Memory/People/Cy.md")
        else:
            await vg.ok("delete_note", path="Memory/Cy.md")
        await vg.settled()
        before = snapshot(vg.root)
        error = await vg.err("apply_finding", "conflict", finding_id=found["id"])
        assert "no longer there" in error["message"] and "changed" not in error["message"], error
        assert error["details"]["path"] == "Memory/Cy.md" and error["details"]["current_etag"] is None, error
        assert snapshot(vg.root) == before
        [still] = (await vg.ok("list_findings", kind="contradiction"))["items"]
        assert still["id"] == found["id"] and still["status"] == "open"
