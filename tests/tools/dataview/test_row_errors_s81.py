"""Session 81 (D1): a row whose expression has no meaning for its operand types.

Dataview 0.5.70 evaluates `a op b` through expression/binaryop.ts `BinaryOpHandler.evaluate`: a
(left type, op, right type) with no registered implementation is a failure, "No implementation
found for 'string - number'" (registered: number with number; string + anything and anything +
string; string * number; date - date, date ± duration; duration ± duration, duration * / number;
array + array; object + object; null with null, and date ± null, are null). query/engine.ts
`executeCore` then leaves a row whose WHERE, SORT key, GROUP BY key or FLATTEN value fails out of
that operation, and `executeCoreExtract` a row whose TABLE column or LIST value fails out of the
result; when every row one operation was given fails, the query fails ("Every row during
operation 'where' failed with an error"). The server kept such rows with a null.

`x / 0` is registered as JavaScript's `a / b`: no failure (Infinity; `0 / 0` and `x % 0` NaN),
null here as JSON has neither (docs/dataview.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

FILES = {"A.md": "n:: 2\n- [ ] task a\n", "B.md": "n:: text\n- [ ] task b\n", "C.md": "nothing\n- [ ] task c\n"}

# only A.md's n is a number: B's `string - number` and C's `null - number` fail
ONLY_A = [
    "LIST WHERE n - 1 < 5",  # before: all three (null < 5)
    "LIST n - 1",
    "TABLE n - 1 AS m",
    "TABLE WITHOUT ID file.name, n * 1",  # B: string * number is registered ("text"), C fails
    "LIST SORT n - 1 DESC",
    "LIST FLATTEN n - 1 AS m",
    "LIST WHERE sum([n, 1]) > 0",  # functions.ts sum: reduce(list, "+"); B's "text" + 1 is text, C's null + 1 fails
]


async def _paths(vg: Harness, query: str) -> list[Any]:
    out = await vg.ok("search_dql", query=query)
    if out["grouped"]:
        return [r["id"]["value"] for r in out["rows"]]
    return [r["path"] for r in out["rows"]]


async def test_a_row_whose_expression_fails_is_left_out(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        for query in ONLY_A:
            expected = ["A.md", "B.md"] if "n * 1" in query or "sum(" in query else ["A.md"]
            assert await _paths(vg, query) == expected, query
        assert await _paths(vg, "LIST GROUP BY n - 1") == [1]
        tasks = await vg.ok("search_dql", query="TASK WHERE n - 1 < 5")
        assert [t["path"] for t in tasks["rows"]] == ["A.md"]
        tasks = await vg.ok("search_dql", query="TASK SORT n - 1")
        assert [t["path"] for t in tasks["rows"]] == ["A.md"]
        row = (await vg.ok("search_dql", query='TABLE WITHOUT ID n * 1 FROM "B"'))["rows"][0]
        assert row["cells"] == [{"type": "string", "value": "text"}]


async def test_a_query_every_row_of_which_fails_is_an_error(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        for query, operation in [
            ("LIST WHERE file.name - 3 > 1", "where"),
            ("TABLE file.name - 1", "extract"),
            ("LIST SORT file.name * file.name", "sort"),
            ("LIST GROUP BY true + 1", "group"),
            ("LIST FLATTEN file.link - 1", "flatten"),
            ('TASK FROM "A" WHERE text - 1', "where"),
            ("CALENDAR file.day + 1", "extract"),
        ]:
            err = await vg.err("search_dql", "query_syntax_error", query=query)
            assert err["details"]["reason"] == "every_row_failed", (query, err)
            assert err["details"]["operation"] == operation, (query, err)
            assert "No implementation found for" in err["message"] and err["hint"]
        err = await vg.err("search_dql", "query_syntax_error", query="LIST WHERE file.name - 3 > 1")
        assert err["details"]["errors"][0] == "No implementation found for 'string - number'"
        # no row: nothing failed, nothing to say
        assert (await vg.ok("search_dql", query='LIST FROM "Nowhere" WHERE file.name - 3'))["rows"] == []


async def test_what_dataview_does_implement(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        query = (
            "TABLE WITHOUT ID 10 / 0, 0 / 0, 5 % 0, dur(1 day) / 0, null + null, date(2024-01-02) + null, "
            'null - date(2024-01-02), "a" + null, null + "a", "ab" * 2, [1] + [2] FROM "A"'
        )
        cells = (await vg.ok("search_dql", query=query))["rows"][0]["cells"]
        assert [c["value"] for c in cells] == [None, None, None, None, None, None, None, "a\\-", "\\-a", "abab", [1, 2]]


async def test_a_function_given_types_it_takes_none_of(make_vault: Callable[..., Path]) -> None:
    """functions.ts `FunctionBuilder.build`: arguments matching none of a function's variants throw
    "No implementation of 'length' found for arguments: number" (length takes array, object,
    string, null; lower string or null, vectorised over a list's items; contains has a `*, *`
    variant, `1 = 2`, so contains(1, 2) is false). A call of literals alone fails every row:
    validate_dql says so, and search_dql refuses it before any row."""
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        assert await _paths(vg, 'LIST WHERE lower(n) = "text"') == ["B.md"]  # A fails, C's lower(null) is null
        assert await _paths(vg, "LIST WHERE length(n) >= 0") == ["B.md", "C.md"]  # length(2) fails
        assert await _paths(vg, "LIST WHERE upper(list(n, n)) != null") == ["B.md", "C.md"]  # per item
        assert await _paths(vg, "LIST WHERE !contains(1, 2)") == ["A.md", "B.md", "C.md"]
        for query, name, message in [
            ("TABLE length(5)", "length", "No implementation of 'length' found for arguments: number"),
            ("LIST WHERE lower(3)", "lower", "No implementation of 'lower' found for arguments: number"),
            (
                'LIST SORT padleft("a", "b")',
                "padleft",
                "No implementation of 'padleft' found for arguments: string, string",
            ),
            ('LIST map([1], (x) => round("x"))', "round", "No implementation of 'round' found for arguments: string"),
            ("TABLE date(5)", "date", "No implementation of 'date' found for arguments: number"),
            ("TABLE link(5)", "link", "No implementation of 'link' found for arguments: number"),
            (
                'TABLE currencyformat("5")',
                "currencyformat",
                "No implementation of 'currencyformat' found for arguments: string",
            ),
            ("TABLE elink(true)", "elink", "No implementation of 'elink' found for arguments: boolean"),
        ]:
            out = await vg.ok("validate_dql", query=query)
            assert out["valid"] is False and out["error"]["message"] == message, (query, out)
            assert out["error"]["function"] == name and out["error"]["reason"] == "no_implementation"
            assert out["error"]["offset"] == query.index(name + "(")
            err = await vg.err("search_dql", "query_syntax_error", query=query)
            assert err["message"] == message
        # not known before the rows: each row fails where it runs
        err = await vg.err("search_dql", "query_syntax_error", query="TABLE length(file.size)")
        assert err["details"]["errors"][0] == "No implementation of 'length' found for arguments: number"
        assert (await vg.ok("validate_dql", query="TABLE length(file.size)"))["valid"] is True
