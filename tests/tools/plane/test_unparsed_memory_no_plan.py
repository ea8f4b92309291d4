"""A memory note whose frontmatter does not parse takes no write (`invalid_frontmatter`), so the
plane proposes no plan about it: the duplicates job reported a `duplicate` with a plan that could
never apply (`conflict: the plan did not complete`, the finding open again and proposed at every
run), and a merge into or out of it likewise (review R3 s63 #10). Such a note is one finding
`invalid_frontmatter`, with no plan, for a person to fix; once fixed, its duplicates get plans.
A block that parses but names a key twice is refused by the writes too, so it is such a note
(review R1 s64 F1: before, its `duplicate` and `contradiction` plans could never apply)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

BODY = "## Observations\n- keeps bees ^a1\n- keeps bees ^a2\n- works at Acme ^a3\n- works at Initech ^a4\n"
BROKEN = "---\nname: Ann\nnotes: [unclosed\n---\n" + BODY
DUPLICATE_KEY = "---\nname: Ann\nkeep: 1\nkeep: 2\n---\n" + BODY
FIXED = "---\nname: Ann\nnotes: [closed]\n---\n" + BODY
ANNS = "---\nname: Anns\nentityType: person\n---\n## Observations\n- plays oboe ^b1\n"


@pytest.mark.parametrize(("broken", "why"), [(BROKEN, ""), (DUPLICATE_KEY, "duplicate key 'keep'")])
async def test_a_note_whose_frontmatter_does_not_parse_gets_one_finding_without_a_plan(
    make_vault: Callable[..., Path], broken: str, why: str
) -> None:
    root = make_vault({"Home.md": "# Home\n", "Memory/Ann.md": broken, "Memory/Anns.md": ANNS})
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates", "contradictions"])
        items = (await vg.ok("list_findings"))["items"]
        assert [(f["kind"], f["paths"]) for f in items] == [("invalid_frontmatter", ["Memory/Ann.md"])], items
        [found] = items
        assert found["plan"] is None and found["detail"]["entity"] == "Ann" and found["detail"]["error"]
        assert why in found["detail"]["error"], found
        await vg.err("apply_finding", "validation_error", finding_id=found["id"])
        assert (root / "Memory/Ann.md").read_text(encoding="utf-8") == broken

        (root / "Memory/Ann.md").write_text(FIXED, encoding="utf-8")  # a person fixes it
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates", "contradictions"])
        kinds = {f["kind"]: f for f in (await vg.ok("list_findings"))["items"]}
        assert set(kinds) == {"duplicate", "contradiction", "duplicate_entity"}, kinds
        assert (await vg.ok("list_findings", status="gone", kind="invalid_frontmatter"))["items"]
        applied = await vg.ok("apply_finding", finding_id=kinds["duplicate"]["id"])
        assert applied["status"] == "applied", applied
    assert (root / "Memory/Ann.md").read_text(encoding="utf-8").count("keeps bees") == 1
