"""Session 80 (D1): validate_dql said valid to a query search_dql then refused before reading a
row: an unknown function, a function given a number of arguments it does not take (in a column,
WHERE, SORT, GROUP BY, FLATTEN or a lambda's body), a LIMIT of a text, a null or a negative
number. It only parsed; now it compiles every expression as search_dql does, and answers the
error with the place of the function's first call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

REFUSED = [
    ('LIST foo(1) FROM "A"', "foo", 5),
    ("LIST WHERE upper()", "upper", 11),
    ("TABLE x SORT striptime(1, 2)", "striptime", 13),
    ('LIST GROUP BY nope("(", file.name)', "nope", 14),
    ("LIST FLATTEN nope(x)", "nope", 13),
    ("TASK\nWHERE zz(text)", "zz", 11),
    ("CALENDAR nope(file.day)", "nope", 9),
    ('LIST map([1], (x) => nope("nope(", x))', "nope", 21),
]


async def test_a_query_search_dql_refuses_is_not_valid(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "---\ndue: 2024-03-01\n---\n"})) as vg:
        await vg.indexed()
        for query, name, offset in REFUSED:
            out = await vg.ok("validate_dql", query=query)
            assert out["valid"] is False and out["parsed"] is None, (query, out)
            assert out["error"]["function"] == name and out["error"]["offset"] == offset, (query, out)
            assert name in out["error"]["message"]
            ran = await vg.err("search_dql", "query_syntax_error", query=query)
            assert ran["message"] == out["error"]["message"] and ran["details"]["offset"] == offset
        wrong = await vg.ok("validate_dql", query="LIST\nWHERE striptime(due, 1)")
        assert wrong["error"]["line"] == 2 and wrong["error"]["column"] == 7
        assert (wrong["error"]["arguments"], wrong["error"]["min"], wrong["error"]["max"]) == (2, 1, 1)
        for limit in ('"x"', "-1", "null"):
            out = await vg.ok("validate_dql", query=f"LIST LIMIT {limit}")
            assert out["valid"] is False and "LIMIT" in out["error"]["message"], out
            await vg.err("search_dql", "query_syntax_error", query=f"LIST LIMIT {limit}")


async def test_queries_that_run_stay_valid(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "---\ndue: 2024-03-01\n---\n"})) as vg:
        await vg.indexed()
        for query in (
            'TABLE WITHOUT ID dateformat(striptime(due), "yyyy-MM-dd") FROM "A" LIMIT 1 + 1',
            "LIST ((x) => x)(1) WHERE this.x SORT file.name LIMIT 0",
            "LIST rows.file.name GROUP BY file.folder FLATTEN map(rows, (r) => r.file.name) AS n",
        ):
            out = await vg.ok("validate_dql", query=query)
            assert out["valid"] is True and out["error"] is None, (query, out)
            await vg.ok("search_dql", query=query)
