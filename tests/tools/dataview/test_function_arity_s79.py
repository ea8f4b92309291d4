"""Session 79 (V3): a Dataview function called with a number of arguments it does not take is a
query_syntax_error naming the function, not internal_error. Found by a random-expression pass
over search_dql (58 internal errors in 800 queries, every one such a call): the functions of
fixed arguments (striptime, localtime, number, floor, truncate, regexreplace, startswith, ...)
were Python calls that raised TypeError. Dataview finds no implementation for such a call
(FunctionBuilder: "No implementation of 'striptime' found for arguments"), every row fails and
so does the query."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

CALLS = [
    ("striptime(due, 1)", "striptime", 2),
    ("localtime(due, 1, 2)", "localtime", 3),
    ('number("3", 4)', "number", 2),
    ('truncate("abc")', "truncate", 1),
    ('regexreplace("a", "b")', "regexreplace", 2),
    ('startswith("a", "b", "c")', "startswith", 3),
    ("upper()", "upper", 0),
    ("floor(1.5, 2)", "floor", 2),
]


async def test_a_call_with_the_wrong_number_of_arguments_is_a_syntax_error(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "---\ndue: 2024-03-01\n---\n"})) as vg:
        await vg.indexed()
        for expr, name, count in CALLS:
            error = await vg.err("search_dql", "query_syntax_error", query=f'TABLE WITHOUT ID {expr} FROM "A"')
            assert error["details"]["function"] == name and error["details"]["arguments"] == count, error
            assert f"{name}()" in error["message"]
            where = await vg.err("search_dql", "query_syntax_error", query=f'LIST FROM "A" WHERE {expr}')
            assert where["details"]["function"] == name


async def test_the_same_functions_with_their_arguments_still_answer(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "---\ndue: 2024-03-01T10:30\n---\n"})) as vg:
        await vg.indexed()
        query = (
            'TABLE WITHOUT ID dateformat(striptime(due), "yyyy-MM-dd"), number("3"), truncate("abcdef", 4), '
            'regexreplace("a", "a", "b"), startswith("ab", "a"), upper("x"), floor(1.5), round(1.26, 1) FROM "A"'
        )
        out = await vg.ok("search_dql", query=query)
        assert [c["value"] for c in out["rows"][0]["cells"]] == ["2024-03-01", 3, "a...", "b", True, "X", 1, 1.3]


async def test_objects_compare_as_dataview_orders_them(make_vault: Callable[..., Path]) -> None:
    """min/max/sort over objects (`min(file.lists)`, `sort(...)` of objects, `SORT` by an object
    property) answered internal_error (the keys and values were compared as tuples). Dataview
    (value.ts compareValue) compares the sorted keys, then the values key by key."""
    files = {
        "A.md": "---\no: {a: 2}\n---\n- one\n- two\n",
        "B.md": "---\no: {a: 1}\n---\n",
        "C.md": "---\no: {a: 1, b: 0}\n---\n",
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        query = (
            "TABLE WITHOUT ID min(file.lists).text, min([{a: 2}, {a: 1}]), min([{b: 1}, {a: 5}]), "
            'sort([{a: 1, b: 2}, {a: 1}]) FROM "A"'
        )
        out = await vg.ok("search_dql", query=query)
        assert [c["value"] for c in out["rows"][0]["cells"]] == [
            "one",
            {"a": 1},
            {"a": 5},
            [{"a": 1}, {"a": 1, "b": 2}],
        ]
        rows = await vg.ok("search_dql", query="LIST SORT o DESC")
        assert [r["path"] for r in rows["rows"]] == ["C.md", "A.md", "B.md"]
