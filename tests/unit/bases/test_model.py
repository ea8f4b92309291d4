"""The .base file model: sections, unknown keys, filter trees, error locations, formula cycles;
and the view runner on a hand-made snapshot (sort with empty values last, not-filters, groups)."""

from __future__ import annotations

import pytest

from service.bases.blocks import base_blocks
from service.bases.env import Context
from service.bases.model import load
from service.bases.parser import ExprSyntaxError, parse
from service.bases.query import pick_view, run
from service.bases.snapshot import Record, Snapshot, StatRecord
from service.errors import BasesSyntaxError


def rec(path: str, **props: object) -> Record:
    return StatRecord(path, 1, 0.0, 0.0, [], dict(props), [])


SNAP = Snapshot([rec("a.md", n=3, k="x"), rec("b.md", n=1, k="y"), rec("c.md", k="x"), rec("d.md", n=2)])


def rows(yaml: str, view: str | None = None) -> list[str]:
    base = load(yaml)
    result = run(base, pick_view(base, view), SNAP, Context(SNAP, None, 100_000, 5.0))
    return [r.record.path for r in result.rows]


def test_sections_unknown_keys_and_display_names() -> None:
    base = load(
        "custom: {a: 1}\nproperties:\n  note.k: {displayName: Kind, width: 3}\n"
        "views:\n  - type: map\n    name: M\n    lat: coords\n    limit: 2\n"
    )
    assert base.extra == {"custom": {"a": 1}}
    assert base.display_names == {"note.k": "Kind"}
    assert base.views[0].extra == {"lat": "coords"} and base.views[0].limit == 2 and base.views[0].type == "map"


def test_filter_tree_and_not_semantics() -> None:
    assert rows("filters: n > 1\n") == ["a.md", "d.md"]
    assert rows("filters:\n  not:\n    - n > 2\n    - k == 'y'\n") == ["c.md", "d.md"]
    assert rows("filters:\n  or:\n    - k == 'y'\n    - and: [n > 2, k == 'x']\n") == ["a.md", "b.md"]
    view = "filters: k == 'x'\nviews:\n  - {name: v, filters: n > 0}\n"
    assert rows(view, "v") == ["a.md"]  # global AND view filters


def test_sort_keeps_empty_values_last_both_ways() -> None:
    asc = "views:\n  - {name: v, sort: [{property: n, direction: ASC}]}\n"
    desc = "views:\n  - {name: v, sort: [{property: n, direction: DESC}]}\n"
    assert rows(asc) == ["b.md", "d.md", "a.md", "c.md"]
    assert rows(desc) == ["a.md", "d.md", "b.md", "c.md"]
    two = "views:\n  - {name: v, sort: [{property: k, direction: ASC}, {property: n, direction: DESC}]}\n"
    assert rows(two) == ["a.md", "c.md", "b.md", "d.md"]


def test_errors_say_where() -> None:
    with pytest.raises(BasesSyntaxError) as e:
        load("views:\n  - name: v\n    filters:\n      and:\n        - 'n >> 2'\n")
    assert e.value.details["line"] == 5 and e.value.details["token"] == ">"
    assert e.value.details["at"] == "views[0].filters.and[0]"
    with pytest.raises(BasesSyntaxError) as e:
        load("formulas:\n  a: formula.a\n")
    assert e.value.details["cycle"] == ["a", "a"]
    with pytest.raises(BasesSyntaxError, match="unknown formula"):
        load("formulas:\n  a: formula.nope\n")
    with pytest.raises(BasesSyntaxError, match="unknown method"):
        load("filters: file.name.shout()\n")
    with pytest.raises(BasesSyntaxError, match="exactly one of"):
        load("filters:\n  xor: [a]\n")
    with pytest.raises(BasesSyntaxError, match="ASC or DESC"):
        load("views:\n  - sort: [{property: a, direction: UP}]\n")


@pytest.mark.parametrize(
    ("text", "offset", "token"),
    [("a +", 3, "end of expression"), ("(a", 2, "end of expression"), ("a b", 2, "b"), ("1 # 2", 2, "#")],
)
def test_parser_reports_offset_and_token(text: str, offset: int, token: str) -> None:
    with pytest.raises(ExprSyntaxError) as e:
        parse(text)
    assert (e.value.offset, e.value.token) == (offset, token)


def test_base_blocks() -> None:
    text = "# T\n```base\nfilters: a\n```\n~~~~base\nviews: []\n~~~~\n```yaml\nx: 1\n```\n"
    blocks = base_blocks(text)
    assert [(b.line, b.text) for b in blocks] == [(2, "filters: a"), (5, "views: []")]


def test_text_equality_shortcut_matches_the_generic_statement() -> None:
    """`status == "x"` is answered from the property column; values that are not text (a link, a
    list, a number, none) still go through the compiled statement, so the rows are the same as
    for the equivalent `"x" == status`, which takes the generic path, and in record order."""
    snap = Snapshot(
        [
            rec("1.md", status="x"),
            rec("2.md", status="[[x]]"),  # a link: equal to the text of its target
            rec("3.md", status=["x"]),
            rec("4.md", status=5),
            rec("5.md"),
            rec("6.md", status="y"),
            rec("7.md", status="x"),
        ]
    )

    def select(flt: str) -> list[str]:
        base = load(f"filters: '{flt}'\n")
        result = run(base, pick_view(base, None), snap, Context(snap, None, 100_000, 5.0))
        return [r.record.path for r in result.rows]

    fast, generic = select('status == "x"'), select('"x" == status')
    assert fast == generic == ["1.md", "2.md", "7.md"]
    assert select('note.status == "y"') == ["6.md"]
