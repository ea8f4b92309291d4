"""Session 82 (D2): Dataview 0.5.70's `and`/`or` and index access, through `search_dql`.

`and`/`or`: binaryop.ts registers `&` and `|` as binary operators ("*" & "*": isTruthy(a) &&
isTruthy(b)), and context.ts evaluates a binary operator's two operands before it applies it
(`Result.flatMap2(evaluate(left), evaluate(right), ...)`): a right operand that fails for the
row's types fails the row even when the left one decides. engine.ts then leaves that row out
(WHERE, a column), and a query every row of which fails is an error. The server short-circuited:
`true or n - 1 > 0` kept a row whose `n` is text or missing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

# only A.md's n is a number: "text" - 1 and null - 1 have no implementation (binaryop.ts)
FILES = {"A.md": "n:: 2\n", "B.md": "n:: text\n", "C.md": "nothing\n"}


async def _paths(vg: Harness, query: str) -> list[Any]:
    return [r["path"] for r in (await vg.ok("search_dql", query=query))["rows"]]


async def test_and_or_evaluate_both_operands(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        for query in [
            "LIST WHERE true or n - 1 > 0",  # before: all three (the left operand decided)
            "LIST WHERE !(false and n - 1 > 0)",
            "LIST WHERE n | n - 1",
            "TABLE WITHOUT ID (true or n - 1) AS x",
            "LIST SORT (n or n - 1) DESC",
        ]:
            assert await _paths(vg, query) == ["A.md"], query
        # a right operand that cannot fail still decides nothing once the left one has
        assert await _paths(vg, "LIST WHERE true or n") == ["A.md", "B.md", "C.md"]
        assert await _paths(vg, 'LIST WHERE n = 2 and file.name = "A"') == ["A.md"]
        err = await vg.err("search_dql", "query_syntax_error", query="LIST WHERE true or file.name - 1")
        assert err["details"]["reason"] == "every_row_failed" and err["details"]["operation"] == "where"
        assert err["details"]["errors"][0] == "No implementation found for 'string - number'"


# context.ts "index" (`a.b` is `a["b"]`, parse.ts): a key that is neither text, number nor null fails;
# an object or link indexed by a number, a string by text, a date or duration by a number fail; a
# list indexed by text maps over its items, leaving out those that fail; a null key is null.
INDEXED = {
    "A.md": "---\nl: [10, 20, 30]\no:\n  k: v\ns: abc\nd: 2024-01-05\nw: [x, y]\n---\n",
    "B.md": "nothing\n",
}
READ = [
    ("l[1]", 20),
    ("l[5]", None),
    ("l[-1]", None),
    ("l[1.5]", None),  # JavaScript's undefined; before: 20
    ("l[null]", None),
    ("s[0]", "a"),
    ('o["k"]', "v"),
    ("o.k", "v"),
    ("d.year", 2024),
    ("w.x", []),  # each text item fails and is left out; before: [null, null]
]
FAILS = [
    ("o[0]", 'can only index into objects with strings (a.b or a["b"])'),
    ("file.link[0]", 'can only index into links with strings (a.b or a["b"])'),
    ("s.length", "string indexing requires a numeric index (string[index])"),  # before: 3
    ('s["x"]', "string indexing requires a numeric index (string[index])"),
    ("d[0]", "date indexing requires a string representing the unit"),
    ("dur(1 day)[0]", "duration indexing requires a string representing the unit"),
    ("l[true]", "Can only index with a string or number"),
    ("l[ [1] ]", "Can only index with a string or number"),
]


def _value(cell: dict[str, Any]) -> Any:
    return cell["value"]


async def test_index_access_fails_where_dataview_fails(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(INDEXED)) as vg:
        await vg.indexed()
        for expr, expected in READ:
            out = await vg.ok("search_dql", query=f'TABLE WITHOUT ID {expr} FROM "A"')
            assert [_value(r["cells"][0]) for r in out["rows"]] == [expected], expr
        for expr, message in FAILS:
            err = await vg.err("search_dql", "query_syntax_error", query=f'TABLE WITHOUT ID {expr} FROM "A"')
            assert err["details"]["reason"] == "every_row_failed", (expr, err)
            assert err["details"]["errors"] == [message], expr
        # B's s is null: null.length is null; A's fails and is left out (a WHERE, a column)
        assert await _paths(vg, "LIST WHERE s.length > 1") == []  # before: A.md
        assert await _paths(vg, "LIST WHERE !s.length") == ["B.md"]
        assert await _paths(vg, "TABLE s.length") == ["B.md"]
        # `file` named by FLATTEN: file.name can fail, so the column is checked on every row
        flat = await vg.ok("search_dql", query="TABLE file.name FLATTEN s AS file")  # A's "abc".name fails
        assert flat["total"] == 1 and flat["rows"][0]["cells"] == [{"type": "null", "value": None}]
        assert await _paths(vg, "TABLE file.name, this.file.name, row.s") == ["A.md", "B.md"]


async def test_field_access_on_a_list_keeps_each_items_value(make_vault: Callable[..., Path]) -> None:
    """context.ts: a list indexed by text pushes each item's value, a list too (no flattening;
    Dataview's functions.md: `flat(rows.file.outlinks)` puts "all the file outlinks at first
    level"). The server flattened: `rows.l` was [10, 20, 30, null]."""
    async with started(make_vault(INDEXED)) as vg:
        await vg.indexed()
        out = await vg.ok(
            "search_dql", query="TABLE WITHOUT ID rows.l AS l, flat(rows.l) AS f, rows.file.name GROUP BY true"
        )
        assert [_value(c) for c in out["rows"][0]["cells"]] == [[[10, 20, 30], None], [10, 20, 30, None], ["A", "B"]]
        out = await vg.ok("search_dql", query='TABLE WITHOUT ID [l, w].x AS x FROM "A"')
        assert [_value(c) for c in out["rows"][0]["cells"]] == [[[None, None, None], []]]


async def test_validate_refuses_a_literal_indexed_as_dataview_refuses(make_vault: Callable[..., Path]) -> None:
    """A literal indexed by a literal in a way context.ts refuses fails every row: validate_dql says
    valid: false (as for `length(5)`), search_dql refuses it before any row. Before: valid, and
    search_dql answered `"abc".length` with 3."""
    async with started(make_vault(INDEXED)) as vg:
        await vg.indexed()
        for query, message in [
            ('TABLE "abc".length', "string indexing requires a numeric index (string[index])"),
            ('LIST WHERE "abc"[true]', "Can only index with a string or number"),
            ('LIST map([1], (x) => "abc"["x"])', "string indexing requires a numeric index (string[index])"),
        ]:
            out = await vg.ok("validate_dql", query=query)
            assert out["valid"] is False and out["error"]["message"] == message, (query, out)
            assert out["error"]["reason"] == "no_implementation"
            err = await vg.err("search_dql", "query_syntax_error", query=query)  # before any row
            assert err["message"] == message, query
        for query in ['TABLE "abc"[0], 5.x, null.x, "abc"[null]', "TABLE s.length"]:
            assert (await vg.ok("validate_dql", query=query))["valid"] is True, query
