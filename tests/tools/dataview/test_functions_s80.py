"""Session 80 (D1): Dataview's functions and operators checked against the plugin's source
(blacksmithgu/obsidian-dataview 0.5.70, expression/functions.ts, binaryop.ts, context.ts), each
row a value the server answered differently before:

- `FunctionBuilder.vectorize(n, positions)`: a list in one of those positions maps the call,
  lists zipped to the shortest. choice (condition), default (both), contains/icontains/econtains
  (the needle), containsword, startswith, endswith, regextest, regexmatch (both), pad*, substring,
  truncate (all), replace, regexreplace (all three), dur. split is not vectorised: no text.
- binaryop.ts registers `string * number` both ways: 3 * "ab" is "ababab" (was null).
- truncate cuts a text longer than length - suffix ("hello", 5 is "he..."; was "hello").
- minby/maxby pass over items whose key is null; maxby keeps the last of equal keys.
- reduce(list, (a, b) => ...) folds with the lambda, nulls after the first passed over (was null).
- nonnull(a, b, ...) of several values; sort and reverse of another value give it back.
- context.ts indexes from 0 only: list[-1] and "abc"[-1] are null (were the last item).
- value.ts isTruthy: a date is false at the epoch (toMillis() == 0), true otherwise (was always true).
- containsword, startswith and endswith given a null are null (`.add2("null", "*", () => null)`;
  were false). Another type they have no implementation for (`endswith("x", 5)`, split of a
  list) fails the row since session 81 (it was null here; `test_no_implementation_fails`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

CASES: list[tuple[str, Any]] = [
    ("choice([true, false, 0], 1, 2)", [1, 2, 2]),
    ("default(5, [1, 2])", [5, 5]),
    ('default(["a", null, "c"], ["x", "y"])', ["a", "y"]),
    ("default(null, 3)", 3),
    ('contains("abc", ["a", "z"])', [True, False]),
    ('icontains("ABC", ["a", "z"])', [True, False]),
    ("econtains([1, 2], [2, 5])", [True, False]),
    ('containsword("a b", ["b", "c"])', [True, False]),
    ('startswith("abc", ["a", "b"])', [True, False]),
    ('endswith(["abc", "abd"], ["c", "c"])', [True, False]),
    ('regextest(["a", "z"], ["abc", "abc"])', [True, False]),
    ('regexmatch("a.", ["ab", "abc"])', [True, False]),
    ('padleft("a", [2, 3])', [" a", "  a"]),
    ('substring("hello", [0, 1], 3)', ["hel", "el"]),
    ('replace("abc", ["a", "b"], "x")', ["xbc", "axc"]),
    ('regexreplace("abc", "b", ["1", "2"])', ["a1c", "a2c"]),
    ('dur(["1 day", "2 hours"])', [{"months": 0, "seconds": 86400.0}, {"months": 0, "seconds": 7200.0}]),
    ('split("a,b", ",")', ["a", "b"]),
    ('3 * "ab"', "ababab"),
    ('"ab" * 2', "abab"),
    ('truncate("hello", 5)', "he..."),
    ('truncate("hello", 8)', "hello"),
    ('truncate("hello world", 11, "/")', "hello worl/"),
    ("minby([1, 2, 3], (x) => choice(x = 1, null, x))", 2),
    ("maxby([1, 2, 3], (x) => choice(x = 3, null, x))", 2),
    ("maxby([1, 2, 3], (x) => 0)", 3),
    ("minby([1, 2, 3], (x) => 0)", 1),
    ("minby([4, 5], (x) => null)", 4),
    ("reduce([1, 2, 3], (a, b) => a + b)", 6),
    ("reduce([1, null, 3], (a, b) => a * b)", 3),
    ("reduce([], (a, b) => a + b)", None),
    ("nonnull(1, null, 2)", [1, 2]),
    ('sort("x")', "x"),
    ("reverse(5)", 5),
    ('containsword(null, "x")', None),
    ('startswith("x", null)', None),
    ('containsword("a b", "b")', True),
    ('choice(date("0", "x"), 1, 2)', 2),
    ('choice(date("1", "x"), 1, 2)', 1),
    ("choice(date(0001-01-01), 1, 2)", 1),
    ("[1, 2, 3][-1]", None),
    ('"abc"[-1]', None),
    ("[1, 2, 3][2]", 3),
    ('"abc"[0]', "a"),
]


async def test_functions_answer_as_the_plugin_does(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"N.md": "x:: 1\n"})) as vg:
        await vg.indexed()
        query = "TABLE WITHOUT ID " + ", ".join(expr for expr, _ in CASES) + ' FROM "N"'
        out = await vg.ok("search_dql", query=query)
        got = [cell["value"] for cell in out["rows"][0]["cells"]]
        wrong = [(expr, value, want) for (expr, want), value in zip(CASES, got, strict=True) if value != want]
        assert not wrong, wrong


async def test_no_implementation_fails(make_vault: Callable[..., Path]) -> None:
    """functions.ts: endswith has (string, string), (null, *), (*, null); split (string, string),
    (string, string, number) and nulls, no vectorisation: a list or a number there throws "No
    implementation of ..." (session 81: the row fails, here the only one, so the query)."""
    async with started(make_vault({"N.md": "x:: 1\n"})) as vg:
        await vg.indexed()
        for expr, types in [('endswith("x", 5)', "string, number"), ('split(["a,b", "c"], ",")', "array, string")]:
            err = await vg.err("search_dql", "query_syntax_error", query=f'TABLE WITHOUT ID {expr} FROM "N"')
            assert f"found for arguments: {types}" in err["message"], err


async def test_a_default_list_field_cut_to_its_fallback_as_in_the_plugin(make_vault: Callable[..., Path]) -> None:
    """`default(field, ["none"])`: a page without the field gets ["none"]; one whose field is a
    list is zipped with the fallback, so only its first item is left (FunctionBuilder's vectorize)."""
    files = {"A.md": "---\nk: [x, y]\n---\n", "B.md": "---\nk: z\n---\n", "C.md": "plain\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("search_dql", query='TABLE WITHOUT ID default(k, ["none"]) SORT file.name')
        assert [r["cells"][0]["value"] for r in out["rows"]] == [["x"], ["z"], ["none"]]
