"""Session 81 (D1): the FROM sources left open.

- `FROM outgoing([[X]])` where X is no note: Dataview answers the pages with a link written X, as
  for `FROM [[X]]` (data-index/resolver.ts matchingSourcePaths, case "link": with no file
  `getFirstLinkpathDest` is empty and it returns `index.links.getInverse(source.file)` before
  looking at the direction); the server answered no page.
- `FROM incoming([[X]])` is no source in Dataview (expression/parse.ts has `linkIncomingSource`,
  the bare `[[X]]`, and `linkOutgoingSource`, `outgoing(...)`): a query_syntax_error, as before.
- `FROM csv("path")` is a Dataview source (parse.ts csvSource, resolver.ts resolveCsvData), which
  the server does not read: it was a syntax error ("expected a source"); it is mode_unavailable
  (source 'csv', the path, supported false), before any row, and validate_dql says so.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.tools.dataview.test_from_missing_link_s80 import FILES, NO_PRIVATE

OUTGOING = {
    "LIST FROM outgoing([[Ghost]])": ["A.md", "B.md"],
    "LIST FROM outgoing([[Private/Ghost]])": ["C.md"],
    "LIST FROM outgoing([[Nobody]])": [],
    "LIST FROM outgoing([[B]])": ["Real.md"],  # a note: the notes it links to, as before
}


async def test_outgoing_of_no_note_csv_and_incoming(make_vault: Callable[..., Path]) -> None:
    hidden = {**FILES, "Private/Ghost.md": "a secret\n", "data.csv": "a,b\n1,2\n"}
    async with started(make_vault(hidden), acl=NO_PRIVATE) as vg:
        await vg.indexed()
        for query, paths in OUTGOING.items():
            assert [r["path"] for r in (await vg.ok("search_dql", query=query))["rows"]] == paths, query
        for query in ('LIST FROM csv("data.csv")', 'TABLE a FROM "A" OR csv("data.csv") WHERE a > 1'):
            err = await vg.err("search_dql", "mode_unavailable", query=query)
            assert err["details"] == {"source": "csv", "path": "data.csv", "supported": False}, err
            assert "csv" in err["message"] and err["hint"]
            out = await vg.ok("validate_dql", query=query)
            assert out["valid"] is False and out["parsed"] is None
            assert (out["error"]["source"], out["error"]["path"], out["error"]["supported"]) == (
                "csv",
                "data.csv",
                False,
            )
        err = await vg.err("search_dql", "query_syntax_error", query="LIST FROM csv(data)")
        assert "csv()" in err["message"]
        err = await vg.err("search_dql", "query_syntax_error", query="LIST FROM incoming([[Ghost]])")
        assert "incoming" in err["message"]
