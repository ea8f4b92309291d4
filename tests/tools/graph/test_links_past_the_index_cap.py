"""A note longer than the index reads (`[limits] max_indexed_note_chars`) has links past the cut
in no `links` row: a move or rewrite_links must still rewrite them (review R4 s63 #2: rename_note
B -> C left `[[B]]` in the tail of a long note and answered links_rewritten 0)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

LIMIT = 2048
FILL = "".join(f"filler line {i} of plain words\n" for i in range(200))
BIG = "# Big\n\nearly [[A]]\n" + FILL + "late [[B]] and ![[B#Sec]]\n"


@pytest.mark.parametrize("tool", ["rename_note", "rewrite_links"])
async def test_links_past_the_cap_are_rewritten(make_vault: Callable[..., Path], tool: str) -> None:
    root = make_vault({"A.md": "# A\n", "B.md": "# B\n\n## Sec\nx\n", "C.md": "# C\n\n## Sec\ny\n", "Big.md": BIG})
    async with started(root, limits={"max_indexed_note_chars": LIMIT}) as vg:
        await vg.indexed(60)
        if tool == "rename_note":
            preview = await vg.ok("rename_note", path="B", new_path="D", dry_run=True)
            await vg.ok("rename_note", path="B", new_path="D")
            want = "late [[D]] and ![[D#Sec]]\n"
        else:
            preview = await vg.ok("rewrite_links", old_target="B", new_target="C", dry_run=True)
            await vg.confirmed("rewrite_links", old_target="B", new_target="C", dry_run=False)
            want = "late [[C]] and ![[C#Sec]]\n"
        assert "Big.md" in str(preview)
    assert (root / "Big.md").read_text(encoding="utf-8").endswith(want)
