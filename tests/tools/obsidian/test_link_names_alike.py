"""A link resolves to the same note in the link index, Dataview and Bases when its name ends in
'.md' or several notes share it: as Obsidian's lookup (`getFirstLinkpathDest`, which Dataview
resolves every link with) and the link index (`linkpath.PathSet.resolve`) read it.

Before: `[[PLAN.MD]]` with a note 'plan.md' (the file plan.md.md) and no plan.md resolved to it in
the index (a file name is looked up with and without '.md') and nowhere in Bases; with both at
the top, Dataview took plan.md.md where the index took plan.md (the path as written first); with
Sub/plan.md.md and Deep/er/plan.md, Dataview and Bases took Deep/er/plan.md, the index
Sub/plan.md.md (fewer folders); `[[x]]` with aa/x.md and b/x.md: the index took b/x.md (the
shorter path), Dataview and Bases aa/x.md (the first by name) (s73 R3's finding, left)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

AUTHOR_VIEW = "filters:\n  and:\n    - list(author).contains(this)\nviews:\n  - type: table\n    name: Author\n"
CASES = {  # notes, the link target, the note it names
    "a note named 'plan.md' alone": ({"plan.md.md": "x\n"}, "PLAN.MD", "plan.md.md"),
    "both at the top": ({"plan.md.md": "x\n", "plan.md": "y\n"}, "PLAN.MD", "plan.md"),
    "fewer folders first": ({"Sub/plan.md.md": "x\n", "Deep/er/plan.md": "y\n"}, "plan.md", "Sub/plan.md.md"),
    "then the shorter path": ({"aa/x.md": "x\n", "b/x.md": "y\n"}, "x", "b/x.md"),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_the_index_dataview_and_bases_resolve_a_link_alike(make_vault: Callable[..., Path], case: str) -> None:
    notes, target, expected = CASES[case]
    source = f'---\nauthor: "[[{target}]]"\n---\nsee [[{target}]]\n'
    async with started(make_vault({**notes, "Src/Source.md": source, "Books.base": AUTHOR_VIEW})) as vg:
        await vg.indexed()
        links = (await vg.ok("get_outlinks", path="Src/Source"))["items"]
        assert [link["path"] for link in links] == [expected, expected]
        table = await vg.ok("search_dql", query='TABLE author FROM "Src"')
        assert table["rows"][0]["cells"][0]["value"]["path"] == expected
        for note in notes:
            rows = (await vg.ok("query_base", path="Books.base", this=note))["rows"]
            assert [r["path"] for r in rows] == (["Src/Source.md"] if note == expected else []), note
