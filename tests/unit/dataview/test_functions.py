"""Dataview's function reference, example by example (docs/reference/functions.md of the
Dataview documentation), plus the expression and literal examples."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from service.dataview.evaluate import Budget, Context, compile_expr
from service.dataview.syntax import parse_expression
from service.dataview.values import Duration, Link

NOW = dt.datetime(2024, 5, 15, 10, 30, 0)
PAGE = {"file": {"ctime": dt.datetime(2022, 1, 5, 12, 18, 4), "mtime": dt.datetime(2022, 1, 6)}, "x": 5, "y": "Y"}


def ev(source: str, row: dict[str, Any] | None = None) -> Any:
    ctx = Context(Budget(100_000, 10), lambda link: None, lambda link: link, PAGE, NOW)
    return compile_expr(parse_expression(source), ctx)(row if row is not None else PAGE)


DOCUMENTED: list[tuple[str, Any]] = [
    # constructors
    ("object()", {}),
    ('object("a", 6)', {"a": 6}),
    ('object("a", 4, "c", "yes")', {"a": 4, "c": "yes"}),
    ("list()", []),
    ("list(1, 2, 3)", [1, 2, 3]),
    ('array("a", "b", "c")', ["a", "b", "c"]),
    ('date("2020-04-18")', dt.datetime(2020, 4, 18)),
    ('date("12/31/2022", "MM/dd/yyyy")', dt.datetime(2022, 12, 31)),
    ('date("210313", "yyMMdd")', dt.datetime(2021, 3, 13)),
    ('date("946778645000", "x")', dt.datetime(2000, 1, 2, 2, 4, 5)),
    ("dur(8 minutes)", Duration(0, 480)),
    ('dur("8 minutes, 4 seconds")', Duration(0, 484)),
    ("dur(dur(8 minutes))", Duration(0, 480)),
    ('number("18 years")', 18),
    ("number(34)", 34),
    ('number("hmm")', None),
    ("string(18)", "18"),
    ("string(dur(8 hours))", "8 hours"),
    ('link("Hello")', Link("Hello")),
    ('link("Hello", "Goodbye")', Link("Hello", "Goodbye")),
    ('embed(link("Hello.png"))', Link("Hello.png", None, True)),
    ('elink("www.google.com", "Google")', "[Google](www.google.com)"),
    ("typeof(8)", "number"),
    ('typeof("text")', "string"),
    ("typeof([1, 2, 3])", "array"),
    ("typeof({ a: 1, b: 2 })", "object"),
    ("typeof(date(2020-01-01))", "date"),
    ("typeof(dur(8 minutes))", "duration"),
    # numeric
    ("round(16.555555)", 17),
    ("round(16.555555, 2)", 16.56),
    ("trunc(12.937)", 12),
    ("trunc(-93.33333)", -93),
    ("trunc(-0.837764)", 0),
    ("floor(12.937)", 12),
    ("floor(-93.33333)", -94),
    ("floor(-0.837764)", -1),
    ("ceil(12.937)", 13),
    ("ceil(-93.33333)", -93),
    ("ceil(-0.837764)", 0),
    ("min(1, 2, 3)", 1),
    ("min([1, 2, 3])", 1),
    ('min("a", "ab", "abc")', "a"),
    ("max(1, 2, 3)", 3),
    ("max([1, 2, 3])", 3),
    ('max("a", "ab", "abc")', "abc"),
    ("sum([1, 2, 3])", 6),
    ("sum([])", None),
    ("sum(nonnull([null, 1, 8]))", 9),
    ("product([1,2,3])", 6),
    ("product([])", None),
    ("product(nonnull([null, 1, 2, 4]))", 8),
    ('reduce([100, 20, 3], "-")', 77),
    ('reduce([200, 10, 2], "/")', 10),
    ('reduce(["⭐", 3], "*")', "⭐⭐⭐"),
    ("average([1, 2, 3])", 2),
    ("average([])", None),
    ("average(nonnull([null, 1, 2]))", 1.5),
    ("minby([1, 2, 3], (k) => k)", 1),
    ("minby([1, 2, 3], (k) => 0 - k)", 3),
    ("maxby([1, 2, 3], (k) => k)", 3),
    ("maxby([1, 2, 3], (k) => 0 - k)", 1),
    # objects, arrays, strings
    ('contains("Hello", "Lo")', False),
    ('contains("Hello", "lo")', True),
    ('icontains("Hello", "Lo")', True),
    ('icontains("Hello", "lo")', True),
    ('econtains("Hello", "Lo")', False),
    ('econtains("Hello", "lo")', True),
    ('econtains(["this","is","example"], "ex")', False),
    ('econtains(["this","is","example"], "is")', True),
    ('contains(["this","is","example"], "ex")', True),
    ('containsword("Hello there", "hello")', True),
    ('containsword(["a b", "xc"], "c")', [False, False]),
    ('extract(object("test", 1))', {}),
    ("sort(list(3, 2, 1))", [1, 2, 3]),
    ('sort(list("a", "b", "aa"))', ["a", "aa", "b"]),
    ("reverse(list(1, 2, 3))", [3, 2, 1]),
    ('reverse(list("a", "b", "c"))', ["c", "b", "a"]),
    ("length([])", 0),
    ("length([1, 2, 3])", 3),
    ('length(object("hello", 1, "goodbye", 2))', 2),
    ("nonnull([])", []),
    ("nonnull([null, false])", [False]),
    ("nonnull([1, 2, 3])", [1, 2, 3]),
    ("firstvalue([null, 1, 2])", 1),
    ("all([1, 2, 3])", True),
    ("all([true, false])", False),
    ("all(true, false)", False),
    ("all(true, true, true)", True),
    ("all([1, 2, 3], (x) => x > 0)", True),
    ("all([1, 2, 3], (x) => x > 1)", False),
    ('all(["apple", "pie", 3], (x) => typeof(x) = "string")', False),
    ("any(list(1, 2, 3))", True),
    ("any(list(true, false))", True),
    ("any(list(false, false, false))", False),
    ("any(true, false)", True),
    ("any(false, false)", False),
    ("any(list(1, 2, 3), (x) => x > 2)", True),
    ("any(list(1, 2, 3), (x) => x = 0)", False),
    ("none([])", True),
    ("none([false, false])", True),
    ("none([false, true])", False),
    ("none([1, 2, 3])", False),
    ("none([1, 2, 3], (x) => x = 0)", True),
    ("none([true, true], (x) => x = false)", True),
    ('none(["Apple", "Pi", "Banana"], (x) => startswith(x, "A"))', False),
    ("join(list(1, 2, 3))", "1, 2, 3"),
    ('join(list(1, 2, 3), " ")', "1 2 3"),
    ("join(6)", "6"),
    ("join(list())", ""),
    ("filter([1, 2, 3], (x) => x >= 2)", [2, 3]),
    ('filter(["yes", "no", "yas"], (x) => startswith(x, "y"))', ["yes", "yas"]),
    ("unique([1, 3, 7, 3, 1])", [1, 3, 7]),
    ("map([1, 2, 3], (x) => x + 2)", [3, 4, 5]),
    ('map(["yes", "no"], (x) => x + "?")', ["yes?", "no?"]),
    ("flat(list(1, 2, 3, list(4, 5), 6))", [1, 2, 3, 4, 5, 6]),
    ("flat(list(1, list(21, 22), list(list (311, 312, 313))), 4)", [1, 21, 22, 311, 312, 313]),
    ("slice([1, 2, 3, 4, 5], 3)", [4, 5]),
    ('slice(["ant", "bison", "camel", "duck", "elephant"], 0, 2)', ["ant", "bison"]),
    ("slice([1, 2, 3, 4, 5], -2)", [4, 5]),
    ('regextest("\\\\w+", "hello")', True),
    ('regextest(".", "a")', True),
    ('regextest("yes|no", "maybe")', False),
    ('regextest("what", "what\'s up dog?")', True),
    ('regexmatch("\\\\w+", "hello")', True),
    ('regexmatch(".", "a")', True),
    ('regexmatch("yes|no", "maybe")', False),
    ('regexmatch("what", "what\'s up dog?")', False),
    ('regexreplace("yes", "[ys]", "a")', "aea"),
    ('regexreplace("Suite 1000", "\\\\d+", "-")', "Suite -"),
    ('replace("what", "wh", "h")', "hat"),
    ('replace("The big dog chased the big cat.", "big", "small")', "The small dog chased the small cat."),
    ('replace("test", "test", "no")', "no"),
    ('lower("Test")', "test"),
    ('lower(["YES", "NO"])', ["yes", "no"]),
    ('replace(["yes", "ree"], "e", "a")', ["yas", "raa"]),
    ('upper("Test")', "TEST"),
    ('split("hello world", " ")', ["hello", "world"]),
    ('split("hello  world", "\\\\s")', ["hello", "", "world"]),
    ('split("hello there world", " ", 2)', ["hello", "there"]),
    ('split("hello there world", "(t?here)")', ["hello ", "there", " world"]),
    ('startswith("yes", "ye")', True),
    ('startswith("path/to/something", "path/")', True),
    ('startswith("yes", "no")', False),
    ('endswith("yes", "es")', True),
    ('endswith("yes", "ye")', False),
    ('padleft("hello", 7)', "  hello"),
    ('padleft("yes", 5, "!")', "!!yes"),
    ('padright("hello", 7)', "hello  "),
    ('padright("yes", 5, "!")', "yes!!"),
    ('substring("hello", 0, 2)', "he"),
    ('substring("hello", 2, 4)', "ll"),
    ('substring("hello", 2)', "llo"),
    ('substring("hello", 0)', "hello"),
    ('truncate("Hello there!", 8)', "Hello..."),
    ('truncate("Hello there!", 8, "/")', "Hello t/"),
    ('truncate("Hello there!", 10)', "Hello t..."),
    ('truncate("Hello there!", 10, "!")', "Hello the!"),
    ('truncate("Hello there!", 20)', "Hello there!"),
    # utility
    ('default(null, "incomplete")', "incomplete"),
    ("default(list(1, 2, null), 3)", [1, 2, 3]),
    ("ldefault(list(1, 2, null), 3)", [1, 2, None]),
    ('display("Hello World")', "Hello World"),
    ('display("**Hello** World")', "Hello World"),
    ('display("[Hello](https://example.com) [[World]]")', "Hello World"),
    ('display(link("path/to/file.md"))', "file"),
    ('display(link("path/to/file.md", "displayname"))', "displayname"),
    ('display(date("2024-11-18"))', "November 18, 2024"),
    ('display(list("Hello", "World"))', "Hello, World"),
    ('choice(true, "yes", "no")', "yes"),
    ('choice(false, "yes", "no")', "no"),
    ("striptime(file.ctime)", dt.datetime(2022, 1, 5)),
    ('dateformat(file.ctime, "yyyy-MM-dd")', "2022-01-05"),
    ('dateformat(file.ctime, "HH:mm:ss")', "12:18:04"),
    ("durationformat(dur(\"3 days 7 hours 43 seconds\"), \"ddd'd' hh'h' ss's'\")", "003d 07h 43s"),
    # The reference writes "M months"; unquoted letters are tokens in Luxon, so quote the word.
    ('durationformat(dur("2000 years"), "M \'months\'")', "24000 months"),
    ('durationformat(dur("14d"), "s \'seconds\'")', "1209600 seconds"),
    ("meta([[2021-11-01|Displayed link text]]).display", "Displayed link text"),
    ("meta([[2021-11-01]]).display", None),
    ("meta([[My Project]]).path", "My Project"),
    ("meta([[My Project#Next Actions]]).path", "My Project"),
    ("meta([[My Project#^9bcbe8]]).path", "My Project"),
    ("meta([[My Project#Next Actions]]).subpath", "Next Actions"),
    ("meta([[My Project#^9bcbe8]]).subpath", "9bcbe8"),
    ("meta([[My Project]]).subpath", None),
    ("meta([[My Project]]).type", "file"),
    ("meta([[My Project#Next Actions]]).type", "header"),
    ("meta([[My Project#^9bcbe8]]).type", "block"),
    # expressions and literals
    ('"a" + "b"', "ab"),
    ('"ab" * 2', "abab"),
    ("7 % 3", 1),
    ("x - 9", -4),
    ("date(2021-04-18) + dur(1 day)", dt.datetime(2021, 4, 19)),
    ("date(2021-01-31) + dur(1 month)", dt.datetime(2021, 2, 28)),
    ("date(2021-04-18) - date(2021-04-17) = dur(1 day)", True),
    ("date(2021-09-20T20:17).hour", 20),
    ("date(today)", dt.datetime(2024, 5, 15)),
    ("date(now)", NOW),
    ("date(sow)", dt.datetime(2024, 5, 13)),
    ("date(som)", dt.datetime(2024, 5, 1)),
    ("date(eom).day", 31),
    ("date(soy)", dt.datetime(2024, 1, 1)),
    ("date(tomorrow).day", 16),
    ("dur(1 s, 2 m, 3 h) = dur(1s 2m 3h)", True),
    ("dur(1second 2min 3h)", Duration(0, 3 * 3600 + 120 + 1)),
    ("dur(9 years, 8 months, 4 days)", Duration(116, 4 * 86400)),
    ("[[1, 2],[3, 4]]", [[1, 2], [3, 4]]),
    ("{ a: 1, b: 2 }.b", 2),
    ('row["x"]', 5),
    ("[1, 2, 3][1]", 2),
    ("!true or 1 < 2 and 2 >= 2", True),
    ("null = null", True),
    ("y + 1", "Y1"),
    ("-x", -5),
]


@pytest.mark.parametrize(("source", "expected"), DOCUMENTED)
def test_documented_example(source: str, expected: Any) -> None:
    assert ev(source) == expected


def test_swizzling_over_lists_and_grouped_rows() -> None:
    rows = {"rows": [{"file": {"name": "a", "tags": ["#x"]}}, {"file": {"name": "b", "tags": ["#y", "#z"]}}]}
    assert ev("rows.file.name", rows) == ["a", "b"]
    assert ev("rows.file.tags", rows) == [["#x"], ["#y", "#z"]]  # context.ts: one value per row, not flattened
    assert ev("flat(rows.file.tags)", rows) == ["#x", "#y", "#z"]
    assert ev("length(rows)", rows) == 2


def test_simplified_names_resolve() -> None:
    row = {"Basic Field": 1, "basic-field": 1}
    assert ev("basic-field", row) == 1 and ev("Basic-Field", row) == 1


def test_deep_expressions_are_syntax_errors_not_crashes() -> None:
    from service.dataview.query import parse_query
    from service.dataview.syntax import DqlError

    for query in (
        "LIST WHERE " + "(" * 100 + "x" + ")" * 100,
        "LIST WHERE " + "!" * 3000 + "x",
        "LIST FROM " + "-" * 3000 + "#a",
        "LIST WHERE " + " + ".join(["1"] * 3000),
        "LIST SORT " + " + ".join(["1"] * 3000),
    ):
        with pytest.raises(DqlError):
            parse_query(query)
    parse_query("LIST WHERE " + " + ".join(["1"] * 200))
