"""rename_note / move_note: a destination in a wikilink's brackets is the name inside them, as for
every tool that makes a note (create_note, copy_note, ...): never a file named `[[X]].md` whose
links, rewritten to `[[[[X]]]]`, break (T8 #12)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

VAULT = {
    "Areas/R1.md": "# R1\n",
    "Areas/R2.md": "# R2\n",
    "Areas/R3.md": "# R3\nsee [[R1]] and [[R2]]\n",
}


async def test_a_bracketed_destination_is_the_name_inside(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        renamed = await vg.ok("rename_note", path="R1", new_path="[[R1 renamed]]")
        assert renamed["path"] == "Areas/R1 renamed.md"
        preview = await vg.ok("move_note", path="R2", new_path="[[Archive/R2 moved]]", dry_run=True)
        assert preview["path"] == "Archive/R2 moved.md"
        assert [c["after"] for i in preview["items"] for c in i["changes"]] == ["see [[R1 renamed]] and [[R2 moved]]"]
        moved = await vg.confirmed("move_note", path="R2", new_path="[[Archive/R2 moved]]")
        assert moved["path"] == "Archive/R2 moved.md"
        assert sorted(p.name for p in (vg.root / "Areas").iterdir()) == ["R1 renamed.md", "R3.md"]
        assert vg.read("Areas/R3.md") == "# R3\nsee [[R1 renamed]] and [[R2 moved]]\n"
        await vg.settled()
        assert (await vg.ok("find_broken_links"))["items"] == []
