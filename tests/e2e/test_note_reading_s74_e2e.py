"""Over HTTP with the SDK client, both eras, the user-visible note-reading fixes of session 74
(H2): a lone block id after `1. a`, blank, `  - b` names the bullet list alone, and one after
`* a` then `* * *` the break alone, as Obsidian reads where a list ends; `[[PLAN.MD]]` names the
note 'plan.md' (plan.md.md) in Dataview and Bases as in the link index; read_note 'Twice#Notes'
reads the first of two 'Notes' sections with heading_matches (dispatch-chain tests:
tests/tools/notes/test_list_ends_as_obsidian_reads.py, tests/tools/obsidian/test_link_names_alike.py,
tests/tools/notes/test_repeated_heading_reads.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

AUTHOR_VIEW = "filters:\n  and:\n    - list(author).contains(this)\nviews:\n  - type: table\n    name: Author\n"
VAULT = {
    "Lists.md": "# L\n\n1. a\n\n  - b\n\n^shallow\n\n* c\n* * *\n\n^rule\n",
    "plan.md.md": "# the note 'plan.md'\n",
    "Src/Source.md": '---\nauthor: "[[PLAN.MD]]"\n---\n',
    "Books.base": AUTHOR_VIEW,
    "Twice.md": "# A\n## Notes\nfirst\n# B\n## Notes\nsecond\n",
}


async def test_note_reading_fixes_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            shallow = await ok(c, "read_note", path="Lists#^shallow")
            assert (shallow["content"], shallow["start_line"]) == ("  - b\n\n^shallow\n", 5)
            rule = await ok(c, "read_note", path="Lists#^rule")
            assert (rule["content"], rule["start_line"]) == ("* * *\n\n^rule\n", 10)
            outline = await ok(c, "get_outline", path="Lists")
            assert [(b["id"], b["start_line"]) for b in outline["blocks"]] == [("shallow", 5), ("rule", 10)]
            [link] = (await ok(c, "get_outlinks", path="Src/Source"))["items"]
            table = await ok(c, "search_dql", query='TABLE author FROM "Src"')
            rows = (await ok(c, "query_base", path="Books.base", this="plan.md.md"))["rows"]
            assert link["path"] == table["rows"][0]["cells"][0]["value"]["path"] == "plan.md.md"
            assert [r["path"] for r in rows] == ["Src/Source.md"]
            twice = await ok(c, "read_note", path="[[Twice#Notes]]")
            assert (twice["content"], twice["heading_matches"]) == ("## Notes\nfirst\n", [2, 5])
