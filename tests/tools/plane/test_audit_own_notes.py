"""The plane's own notes (a kept digest, which links every changed note and quotes their first
sentences) change nothing the audit finds: an orphan stays an orphan, a broken link it copies is
still linked from its own notes only, a tag it copies counts for no variant."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

VAULT = {
    "Home.md": "# Home\n\nSee [[Projets Alpha]] for the plan. #ToDo\n",
    "Lonely.md": "# Lonely\n\nNobody links here.\n",
    "Other.md": "# Other\n\nBack to [[Home]]. #todo\n",
    "Third.md": "# Third\n\nAlso [[Home]] and [[Other]]. #todo\n",
}


async def test_a_kept_digest_hides_no_orphan_and_spreads_no_broken_link(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["audit", "digest"])
        [digest] = (await vg.ok("list_findings", kind="digest"))["items"]
        await vg.ok("apply_finding", finding_id=digest["id"])
        kept = next((vg.root / "Digests").iterdir()).read_text()
        assert "[[Lonely" in kept and "Projets Alpha" in kept  # it links the orphan and copies the broken link
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["audit"])
        found = (await vg.ok("list_findings", limit=100))["items"]
    by_kind = {(f["kind"], f["title"].split(" ")[0]): f for f in found}
    assert ("orphan", "Lonely.md") in by_kind
    [broken] = [f for f in found if f["kind"] == "broken_link"]
    assert broken["detail"]["linked_from"] == ["Home.md"]
    [variant] = [f for f in found if f["kind"] == "tag_variant"]
    assert variant["detail"]["variants"] == {"ToDo": 1, "todo": 2}
