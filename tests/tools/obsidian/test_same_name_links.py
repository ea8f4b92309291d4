"""A link to a name two notes share resolves, in Bases and Dataview, to the one in the linking
note's folder, as Obsidian and the link index resolve it. On a served copy of kepano's vault,
`create_entities` of "Kevin Kelly" made `Memory/Kevin Kelly.md` beside `References/Kevin
Kelly.md`; get_outlinks of `References/Out of Control.md` still resolved its `author: [[Kevin
Kelly]]` to the References note, but the author page's own base (`Books.base#Author`:
`list(author).contains(this)`) listed no book and search_dql's `author` pointed at the memory
note: both engines took the shallowest path of the name, never the linking note's folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

AUTHOR_VIEW = "filters:\n  and:\n    - list(author).contains(this)\nviews:\n  - type: table\n    name: Author\n"
VAULT = {
    "References/Out of Control.md": '---\ncategories:\n  - "[[Books]]"\nauthor:\n  - "[[Kevin Kelly]]"\n---\n',
    "References/Kevin Kelly.md": '---\ncategories:\n  - "[[People]]"\n---\n## Books\n\n![[Books.base#Author]]\n',
    "Memory/Kevin Kelly.md": '---\nname: "Kevin Kelly"\nentityType: person\n---\n# Kevin Kelly\n',
    "Notes/Reading.md": "# Reading\n\n- next [by:: [[Kevin Kelly]]]\n",
    "Templates/Bases/Books.base": AUTHOR_VIEW,
}


async def test_bases_and_dataview_resolve_a_shared_name_from_the_linking_note(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        [link] = [
            i for i in (await vg.ok("get_outlinks", path="Out of Control"))["items"] if i["target"] == "Kevin Kelly"
        ]
        assert link["path"] == "References/Kevin Kelly.md"
        rows = (await vg.ok("query_base", path="Books.base", this="References/Kevin Kelly"))["rows"]
        assert [r["path"] for r in rows] == ["References/Out of Control.md"]
        none = (await vg.ok("query_base", path="Books.base", this="Memory/Kevin Kelly"))["rows"]
        assert none == []
        table = await vg.ok("search_dql", query='TABLE author FROM "References" WHERE author')
        [row] = table["rows"]
        assert [v["path"] for v in row["cells"][0]["value"]] == ["References/Kevin Kelly.md"]
        # a note in neither folder: the shortest path, as before (Memory/ sorts first)
        items = await vg.ok("search_dql", query='LIST item.by FROM "Notes" FLATTEN file.lists AS item')
        assert items["rows"][0]["value"]["value"]["path"] == "Memory/Kevin Kelly.md", items["rows"]
