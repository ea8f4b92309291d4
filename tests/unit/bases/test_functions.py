"""Every documented Bases function against the examples of the help pages ("Functions", "Bases
syntax", "Formulas"), plus the cases the pages describe in words."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from service.bases.dates import Date, Duration
from service.bases.env import Context, Env
from service.bases.evaluate import compile_expr
from service.bases.parser import parse
from service.bases.snapshot import LinkRow, Snapshot, StatRecord
from service.bases.values import FileRef, Link, Regex, Rendered

NOTE = StatRecord(
    "Notes/Note.md",
    120,
    1_700_000_000.0,
    1_700_086_400.0,
    ["tag1/a", "project"],
    {"price": 2.5, "age": 5, "status": "open", "author": "[[Other]]", "due": "2025-01-01", "list": [1, 2]},
    [
        LinkRow("Other", "Other.md", None, False),
        LinkRow("pic.png", "pic.png", None, True),
        LinkRow("Idea", None, None, False),
    ],
)
OTHER = StatRecord(
    "Other.md", 10, 1_700_000_000.0, 1_700_000_000.0, [], {}, [LinkRow("Note", "Notes/Note.md", None, False)]
)
PIC = StatRecord("pic.png", 3, 1_700_000_000.0, 1_700_000_000.0, [], {}, [])
SNAP = Snapshot([NOTE, OTHER, PIC])


def ev(expr: str, values: list[Any] | None = None) -> Any:
    ctx = Context(SNAP, OTHER, 100_000, 5.0)
    env = Env(ctx, NOTE, {"values": values} if values is not None else None)
    bound = frozenset({"values"}) if values is not None else frozenset()
    return compile_expr(parse(expr), bound)(env)


GLOBAL = [
    ('escapeHTML("<b>&</b>")', "&lt;b&gt;&amp;&lt;/b&gt;"),
    ('if(price, price.toFixed(2) + " dollars")', "2.50 dollars"),
    ('if(nothing, "yes")', None),
    ('if(false, "Modified", "Unmodified")', "Unmodified"),
    ('list("value")', ["value"]),
    ("list([1, 2])", [1, 2]),
    ("max(1, 7, 3)", 7),
    ("min(4, 2, 9)", 2),
    ('number("3.4")', 3.4),
    ("number(true)", 1),
    ("number(false)", 0),
    ('number(date("1970-01-02 00:00:00")) == date("1970-01-02 00:00:00") - date("1970-01-01 00:00:00") + '
     'number(date("1970-01-01 00:00:00"))', True),
    ("now() - now()", 0.0),
    ("today().hour", 0),
    ("(now() + \"1d\") - now()", 86_400_000.0),
    ("random() >= 0 && random() < 1", True),
    ('duration("1d") * 2 == duration("2d")', True),
    ('icon("arrow-right")', Rendered("icon", "arrow-right")),
    ('html("<i>x</i>")', Rendered("html", "<i>x</i>")),
    ('image("https://obsidian.md/logo.svg")', Rendered("image", "https://obsidian.md/logo.svg")),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "expected"), GLOBAL)
def test_global_functions(expr: str, expected: Any) -> None:
    assert ev(expr) == expected


def test_date_duration_file_link() -> None:
    assert ev('date("2025-01-01 12:00:00")') == Date(dt.datetime(2025, 1, 1, 12), True)
    assert ev('date("2024-12-01") + "1M" + "4h" + "3m"') == Date(dt.datetime(2025, 1, 1, 4, 3), True)
    assert ev('duration("5h")') == Duration(0, 5 * 3_600_000.0)
    assert ev('today() + "7d" > now()') is True
    assert ev('file("Other.md")') == FileRef(OTHER)
    assert ev('file(link("[[Other]]"))') == FileRef(OTHER)
    assert ev('file("Missing")') is None
    assert ev('link("Other")') == Link("Other", "Other.md")
    assert ev('link("Other", "display")') == Link("Other", "Other.md", "display")
    assert ev('link("https://obsidian.md")') == Link("https://obsidian.md")
    assert ev("link(file.ctime.date().toString())").target == dt.datetime.fromtimestamp(1_700_000_000).strftime(
        "%Y-%m-%d"
    )
    for bad in ('number("abc")', 'date("not a date")', 'duration("soon")'):
        with pytest.raises(Exception, match="not a"):
            ev(bad)


ANY = [
    ("1.isTruthy()", True),
    ("0.isTruthy()", False),
    ('"example".isType("string")', True),
    ('true.isType("boolean")', True),
    ('[1].isType("list")', True),
    ("123.toString()", "123"),
    ("(2.5).toString()", "2.5"),
]


@pytest.mark.parametrize(("expr", "expected"), ANY)
def test_any_functions(expr: str, expected: Any) -> None:
    assert ev(expr) == expected


def test_date_fields_and_functions() -> None:
    d = 'date("2025-05-27 13:45:30")'
    assert [ev(f"{d}.{f}") for f in ("year", "month", "day", "hour", "minute", "second", "millisecond")] == [
        2025, 5, 27, 13, 45, 30, 0,
    ]  # fmt: skip
    assert ev(f'{d}.date().format("YYYY-MM-DD HH:mm:ss")') == "2025-05-27 00:00:00"
    assert ev(f'{d}.format("YYYY-MM-DD")') == "2025-05-27"
    assert ev(f'{d}.format("dddd, MMMM Do YYYY, h:mm a")') == "Tuesday, May 27th 2025, 1:45 pm"
    assert ev(f"{d}.time()") == "13:45:30"
    # format() is Moment's whole token table (service.dates.moment, shared with periodic notes):
    # ordinals, localised formats, era, 1-24 hours, locale vs ISO weeks; other letters are literal.
    assert ev(f'{d}.format("Qo [quarter], DDDo [day], LL")') == "2nd quarter, 147th day, May 27, 2025"
    assert ev(f'{d}.format("LLLL")') == "Tuesday, May 27, 2025 1:45 PM"
    assert ev(f'{d}.format("YYYY-MM-DDTHH:mm NNNN kk")') == "2025-05-27T13:45 Anno Domini 13"
    assert ev('date("2021-01-03").format("gggg-[W]ww GGGG-[W]WW")') == "2021-W02 2020-W53"
    assert ev(f"{d}.isEmpty()") is False
    assert ev('(now() - "3 days").relative()') == "3 days ago"
    assert ev('(now() + "2h").relative()') == "in 2 hours"
    assert ev('file.mtime > now() - "1 week"') is False  # modified in 2023
    assert ev('due < date("2025-06-01")') is True  # a date property compares as a date
    assert ev("now().date() == today()") is True


STRING = [
    ('"hello".length', 5),
    ('"hello".contains("ell")', True),
    ('"hello".containsAll("h", "e")', True),
    ('"hello".containsAll("h", "x")', False),
    ('"hello".containsAny("x", "y", "e")', True),
    ('"hello".endsWith("lo")', True),
    ('"Hello world".isEmpty()', False),
    ('"".isEmpty()', True),
    ("nothing.isEmpty()", True),
    ('"HeLLo".lower()', "hello"),
    ('"a:b:c:d".replace(/:/, "-")', "a-b:c:d"),
    ('"a:b:c:d".replace(/:/g, "-")', "a-b-c-d"),
    ('"a:b:c:d".replace(":", "-")', "a-b-c-d"),
    ('"John Smith".replace(/(\\w+) (\\w+)/, "$2, $1")', "Smith, John"),
    ('"123".repeat(2)', "123123"),
    ('"hello".reverse()', "olleh"),
    ('"hello".slice(1, 4)', "ell"),
    ('"hello".slice(1)', "ello"),
    ('"a,b,c,d".split(",", 3)', ["a", "b", "c"]),
    ('"a,b,c,d".split(/,/, 3)', ["a", "b", "c"]),
    ('"a,b".split(",")', ["a", "b"]),
    ('"hello".startsWith("he")', True),
    ('"hello world".title()', "Hello World"),
    ('"  hi  ".trim()', "hi"),
]


@pytest.mark.parametrize(("expr", "expected"), STRING)
def test_string_functions(expr: str, expected: Any) -> None:
    assert ev(expr) == expected


NUMBER = [
    ("(-5).abs()", 5),
    ("(2.1).ceil()", 3),
    ("(2.9).floor()", 2),
    ("5.isEmpty()", False),
    ("(2.5).round()", 3),
    ("(2.3333).round(2)", 2.33),
    ("(3.14159).toFixed(2)", "3.14"),
    ("radius * (2 * 3.14)", None),  # no radius property: null, not an error
    ("7 % 3", 1),
    ("(price / age).toFixed(2)", "0.50"),
]


@pytest.mark.parametrize(("expr", "expected"), NUMBER)
def test_number_functions_and_arithmetic(expr: str, expected: Any) -> None:
    assert ev(expr) == expected


LIST = [
    ("[1,2,3].length", 3),
    ("[1,2,3].contains(2)", True),
    ("[1,2,3].containsAll(2,3)", True),
    ("[1,2,3].containsAny(3,4)", True),
    ("[1,2,3].containsAny(5,4)", False),
    ("[1,2,3,4].filter(value > 2)", [3, 4]),
    ("[5,6,7].filter(index > 0)", [6, 7]),
    ("[1,[2,3]].flat()", [1, 2, 3]),
    ("[1,2,3].isEmpty()", False),
    ("[].isEmpty()", True),
    ('[1,2,3].join(",")', "1,2,3"),
    ("[1,2,3,4].map(value + 1)", [2, 3, 4, 5]),
    ("[1,2,3].map(value * index)", [0, 2, 6]),
    ("[1,2,3].reduce(acc + value, 0)", 6),
    ("[1,2,3].reverse()", [3, 2, 1]),
    ("[1,2,3,4].slice(1,3)", [2, 3]),
    ("[1,2,3,4].slice(2)", [3, 4]),
    ("[3, 1, 2].sort()", [1, 2, 3]),
    ('["c", "a", "b"].sort()', ["a", "b", "c"]),
    ("[1,2,2,3].unique()", [1, 2, 3]),
    ("list[0]", 1),
    ("list[5]", None),
]


@pytest.mark.parametrize(("expr", "expected"), LIST)
def test_list_functions(expr: str, expected: Any) -> None:
    assert ev(expr) == expected


def test_reduce_max_example_and_summary_values() -> None:
    expr = 'values.filter(value.isType("number")).reduce(if(acc == null || value > acc, value, acc), null)'
    assert ev(expr, [3, "x", 9, None, 4]) == 9
    assert ev(expr, ["x"]) is None
    assert ev("values.mean().round(3)", [1, 2, 2]) == 1.667


def test_link_functions() -> None:
    assert ev('link("[[Other]]").asFile()') == FileRef(OTHER)
    assert ev('link("Nowhere").asFile()') is None
    assert ev('link("Other").linksTo(file)') is True  # Other links to Note
    assert ev('link("Other").linksTo(file("pic.png"))') is False
    assert ev("author == this") is True  # the property link resolves to `this` (Other.md)
    assert ev("list(author).contains(this)") is True
    assert ev('author == link("Other")') is True
    assert ev('author != link("Nowhere")') is True


def test_file_fields_and_functions() -> None:
    fields = ["name", "basename", "path", "folder", "ext", "size"]
    assert [ev(f"file.{f}") for f in fields] == ["Note.md", "Note", "Notes/Note.md", "Notes", "md", 120]
    assert ev("file.tags") == ["tag1/a", "project"]
    assert ev('file.hasLink("idea")') is True  # an unresolved link matches by its text
    assert ev("file.links") == [Link("Other", "Other.md"), Link("Idea"), Link("Other", "Other.md")]  # + frontmatter
    assert ev("file.embeds") == [Link("pic.png", "pic.png")]
    assert ev("file.backlinks") == [Link("Other", "Other.md")]
    assert ev("file.properties.status") == "open"
    assert ev("file.ctime.year") == dt.datetime.fromtimestamp(1_700_000_000).year
    assert ev("file.file") == FileRef(NOTE)
    assert ev("file.asLink()") == Link("Note", "Notes/Note.md")
    assert ev('file.asLink("shown")') == Link("Note", "Notes/Note.md", "shown")
    assert ev("file.hasLink(this)") is True
    assert ev('file.hasLink("Other")') is True
    assert ev('file.hasLink("pic.png")') is True  # an embed is a link too
    assert ev('file.hasLink("Nowhere")') is False
    assert ev("this.file.hasLink(file)") is True
    assert ev('file.hasProperty("status")') is True
    assert ev('file.hasProperty("nope")') is False
    assert ev('file.hasTag("tag1", "tag2")') is True  # nested #tag1/a
    assert ev('file.hasTag("#PROJECT")') is True
    assert ev('file.hasTag("tag")') is False
    assert ev('file.inFolder("Notes")') is True
    assert ev('file.inFolder("Not")') is False
    assert ev("this.file.name") == "Other.md"
    assert ev("note.price") == 2.5
    assert ev('note["price"]') == 2.5
    assert ev("price") == 2.5


OBJECT = [
    ("{}.isEmpty()", True),
    ('{"a": 1, "b": 2}.isEmpty()', False),
    ('{"a": 1, "b": 2}.keys()', ["a", "b"]),
    ('{"a": 1, "b": 2}.values()', [1, 2]),
    ('{"a": 1}.a', 1),
    ('{"a": 1}["a"]', 1),
]


@pytest.mark.parametrize(("expr", "expected"), OBJECT)
def test_object_functions(expr: str, expected: Any) -> None:
    assert ev(expr) == expected


def test_regexp_functions() -> None:
    assert ev('/abc/.matches("abcde")') is True
    assert ev('/^abc$/i.matches("ABC")') is True
    assert ev('/xyz/.matches("abcde")') is False
    assert isinstance(ev("/a+/g"), Regex)


OPERATORS = [
    ("1 + 2 * 3", 7),
    ("(1 + 2) * 3", 9),
    ("10 / 4", 2.5),
    ('"a" + 1', "a1"),
    ("2 > 1 && 1 >= 1", True),
    ("1 < 0 || 1 <= 0", False),
    ("!true", False),
    ('status == "open"', True),
    ('status != "done"', True),
    ("age > 4", True),
    ('"b" > "a"', True),
    ("[1, 2] == [1, 2]", True),
    ('"5" == 5', True),
]


@pytest.mark.parametrize(("expr", "expected"), OPERATORS)
def test_operators(expr: str, expected: Any) -> None:
    assert ev(expr) == expected


def test_a_catastrophic_regular_expression_stops_at_the_time_budget() -> None:
    from service.budget import Budget
    from service.errors import ComputeBudgetExceeded

    with Budget(max_seconds=0.2).active(), pytest.raises(ComputeBudgetExceeded):
        ev('/(a|aa)+$/.matches("' + "a" * 40 + 'b")')
