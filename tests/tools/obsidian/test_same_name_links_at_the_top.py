"""A bare link to a name a note at the vault's top shares with one in the linking note's folder
resolves to the same note in Bases as in the link index and Dataview: the one at the top.

5d94bd89 made Bases resolve a shared name from the linking note's folder first. The link index
(`linkpath.PathSet.resolve`: the name as a path from the vault's top first, then from the note's
folder) and Dataview (`PageSet.resolve_path`: the exact path first) take a note at the top
first; Bases took the folder's: with `Kevin Kelly.md` at the top and in References/,
get_outlinks and search_dql resolved References/Out of Control.md's `author: [[Kevin Kelly]]` to
the top note and query_base `list(author).contains(this)` to References/Kevin Kelly.md: each
author page's base listed what the link graph did not (found probing 5d94bd89 with a third note
of the name)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

AUTHOR_VIEW = "filters:\n  and:\n    - list(author).contains(this)\nviews:\n  - type: table\n    name: Author\n"
VAULT = {
    "References/Out of Control.md": '---\nauthor:\n  - "[[Kevin Kelly]]"\n---\n',
    "References/Kevin Kelly.md": "# in References\n",
    "Kevin Kelly.md": "# at the top\n",
    "Books.base": AUTHOR_VIEW,
}


async def test_a_shared_name_at_the_top_resolves_alike_in_bases_dataview_and_the_index(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        [link] = (await vg.ok("get_outlinks", path="References/Out of Control"))["items"]
        assert link["path"] == "Kevin Kelly.md"
        table = await vg.ok("search_dql", query='TABLE author FROM "References" WHERE author')
        assert [v["path"] for v in table["rows"][0]["cells"][0]["value"]] == ["Kevin Kelly.md"]
        top = (await vg.ok("query_base", path="Books.base", this="Kevin Kelly.md"))["rows"]
        assert [r["path"] for r in top] == ["References/Out of Control.md"]
        assert (await vg.ok("query_base", path="Books.base", this="References/Kevin Kelly"))["rows"] == []


async def test_a_top_note_of_the_name_in_another_letter_case_is_taken_alike(make_vault: Callable[..., Path]) -> None:
    """`kevin kelly.md` at the top: the link index and Bases find it by the name in any letter
    case; Dataview looked for the exact path as written only, then took References/'s note
    (search_dql's author pointed elsewhere than get_outlinks)."""
    files = {**VAULT, "kevin kelly.md": VAULT["Kevin Kelly.md"]}
    del files["Kevin Kelly.md"]
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        [link] = (await vg.ok("get_outlinks", path="References/Out of Control"))["items"]
        assert link["path"] == "kevin kelly.md"
        table = await vg.ok("search_dql", query='TABLE author FROM "References" WHERE author')
        assert [v["path"] for v in table["rows"][0]["cells"][0]["value"]] == ["kevin kelly.md"]
        top = (await vg.ok("query_base", path="Books.base", this="kevin kelly.md"))["rows"]
        assert [r["path"] for r in top] == ["References/Out of Control.md"]
