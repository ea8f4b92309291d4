"""A rename through the dispatch chain rewrites one link of a frontmatter flow list of thousands
of quoted links on one line, in its quoting, and the note's properties read back (review R2 s64
F12: the style of each link was found by a regex over the line's start for every quote, quadratic
in the line; the linear reading is counted in tests/unit/graph/test_yaml_styles_linear.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

N = 3000
LINE = "r: [" + ", ".join(f'"[[{i}]]"' if i % 2 else f"'[[{i}]]'" for i in range(N)) + "]"


async def test_a_rename_rewrites_one_link_of_a_long_flow_list(make_vault: Callable[..., Path]) -> None:
    big = "---\n" + LINE + "\n---\n# Big\n"
    async with started(make_vault({"1.md": "# one\n", "2.md": "# two\n", "Big.md": big})) as vg:
        await vg.indexed()
        preview = await vg.ok("rename_note", path="1", new_path="It's one", dry_run=True)
        assert [(i["path"], len(i["changes"])) for i in preview["items"]] == [("Big.md", 1)]
        await vg.ok("rename_note", path="1", new_path="It's one")
        await vg.ok("rename_note", path="2", new_path="Two")
        assert vg.read("Big.md") == big.replace('"[[1]]"', '"[[It\'s one]]"').replace("'[[2]]'", "'[[Two]]'")
        await vg.settled()
        note = await vg.ok("read_note", path="Big")
        assert note["frontmatter_error"] is None
        assert note["properties"]["r"][:3] == ["[[0]]", "[[It's one]]", "[[Two]]"]
