"""Session 80 (D1): Dataview's query parser skips `// comments` between clauses (query/parse.ts
`optionalWhitespaceOrComment`), so owners write them in ```dataview blocks; search_dql and
validate_dql answered query_syntax_error ("expected a value, found '/'") at the first one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

QUERY = """```dataview
// books I rated
TABLE WITHOUT ID file.name AS "Name // title", rating // out of 10
FROM "Books" // only this folder
// WHERE rating < 0
SORT rating DESC
```"""


async def test_comments_in_a_query_are_skipped(make_vault: Callable[..., Path]) -> None:
    files = {
        "Books/A.md": "---\nrating: 7\nurl: http://a.example\n---\n",
        "Books/B.md": "---\nrating: 9\n---\n",
        "Other.md": "---\nrating: 1\n---\n",
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("search_dql", query=QUERY)
        assert out["columns"] == ["Name // title", "rating"]
        assert [[c["value"] for c in r["cells"]] for r in out["rows"]] == [["B", 9], ["A", 7]]
        checked = await vg.ok("validate_dql", query=QUERY)
        assert checked["valid"] is True and checked["parsed"]["type"] == "TABLE", checked
        assert [c["command"] for c in checked["parsed"]["commands"]] == ["SORT"]
        # text and links holding // are not comments
        urls = await vg.ok("search_dql", query='TABLE WITHOUT ID url + "//x", "a//b" FROM "Books/A"')
        assert [c["value"] for c in urls["rows"][0]["cells"]] == ["http://a.example//x", "a//b"]
        bad = await vg.ok("validate_dql", query="LIST // fine\nWHERE (")
        assert bad["valid"] is False and bad["error"]["line"] == 2
