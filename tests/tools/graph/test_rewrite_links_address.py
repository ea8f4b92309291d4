"""rewrite_links takes old_target as get_backlinks takes a note: an address that names an existing
note (a bare name, a wikilink) is that note, and every link to it is repointed; a name that names
no note is the path as written, which may no longer exist (T8 #13)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

VAULT = {
    "Areas/R3.md": "# R3\n",
    "Areas/Reading list.md": "# Reading list\n",
    "R4.md": "# R4\nlink [[R3]] and [[Areas/R3|r]]\n",
    "R5.md": "# R5\nstale [[Gone]]\n",
}
BOTH = ["link [[Reading list]] and [[Areas/Reading list|r]]"]


async def test_old_target_names_an_existing_note_by_any_address(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        backlinks = await vg.ok("get_backlinks", path="R3")
        assert backlinks["target"] == "Areas/R3.md" and len(backlinks["items"]) == 2
        for old in ("Areas/R3", "R3", "[[R3]]", "r3"):
            out = await vg.ok("rewrite_links", old_target=old, new_target="Reading list")
            assert out["old_target"] == "Areas/R3.md", old
            assert [c["after"] for i in out["items"] for c in i["changes"]] == BOTH, old
        # A name no note has keeps its literal reading: the links that still name it are repaired.
        gone = await vg.ok("rewrite_links", old_target="[[Gone]]", new_target="Reading list")
        assert gone["old_target"] == "Gone.md"
        assert [c["after"] for i in gone["items"] for c in i["changes"]] == ["stale [[Reading list]]"]
        done = await vg.confirmed("rewrite_links", old_target="[[R3]]", new_target="Reading list", dry_run=False)
        assert done["links_rewritten"] == 1 and vg.read("R4.md") == "# R4\n" + BOTH[0] + "\n"
