"""Inline fields and list items as the indexer extracts them (service.dataview.fields)."""

from __future__ import annotations

from service.dataview.fields import bracket_fields, decode, extract
from service.dataview.items import build_items
from service.dataview.values import Duration, Link, canonical_key, parse_inline_value
from service.markdown.parse import parse_note


def test_every_inline_form_with_file_lines() -> None:
    text = (
        "---\nrating: 1\n---\n"  # lines 0-2: frontmatter is not scanned
        "Basic Field:: Some random Value\n"  # 3
        "**Bold Field**:: Nice!\n"  # 4
        "I would rate this a [rating:: 9]! It was [mood:: acceptable].\n"  # 5
        "This will not show the (longKeyIDontNeedWhenReading:: key).\n"  # 6
        "```\nfake:: no\n```\n"  # 7-9: fenced code is skipped
        "- [ ] Send an mail [due:: 2022-04-05] ✅ 2022-04-06\n"  # 10
        "    - child item\n"  # 11
        "- [x] done ^abc\n"  # 12
    )
    fields, items = decode(extract(text, text.index("Basic"), parse_note("n.md", text).items))
    assert fields == [
        ["Basic Field", "Some random Value", 3],
        ["Bold Field", "Nice!", 4],  # Dataview's full-line key parser drops the Markdown around it
        ["rating", "9", 5],
        ["mood", "acceptable", 5],
        ["longKeyIDontNeedWhenReading", "key", 6],
    ]  # a task's field (line 10) is the task's own, not the page's, as in Dataview
    assert items == [  # the note parser's list items (service.markdown.parse), the ones list_tasks reads
        [10, -1, " ", "Send an mail [due:: 2022-04-05] ✅ 2022-04-06", None, None, []],
        [11, 10, None, "child item", None, None, []],
        [12, -1, "x", "done ^abc", "abc", None, []],
    ]
    first = build_items("n.md", items, lambda v: v)[0]  # the bracketed field, then the emoji date
    assert (first["due"].date().isoformat(), first["completion"].date().isoformat()) == ("2022-04-05", "2022-04-06")
    assert extract("no fields here\n", 0) == ""


def test_brackets_nest_and_links_are_not_fields() -> None:
    assert bracket_fields("[[Link]] and [key:: [[A|B]]] (x:: (1))") == [("key", "[[A|B]]"), ("x", "(1)")]
    assert bracket_fields("[[Page::not a field]]") == []


def test_value_types_and_keys() -> None:
    assert parse_inline_value("6hr 4min") == Duration(0, 6 * 3600 + 240)
    assert parse_inline_value("1, 2, 3") == [1, 2, 3]
    assert parse_inline_value("yes, or, no") == "yes, or, no"
    assert parse_inline_value('"yes", "or", "no"') == ["yes", "or", "no"]
    assert parse_inline_value("[[A Page]], [[B|b]]") == [Link("A Page"), Link("B", "b")]
    assert parse_inline_value("2021-04-17 18:00") == "2021-04-17 18:00"  # text, as documented
    assert parse_inline_value("-80") == -80 and parse_inline_value("true") is True
    assert canonical_key("**Bold Field**") == "bold-field"
    assert (
        canonical_key("Noël") == "noël"
        and canonical_key("xmas🎄") == "xmas🎄"
        and canonical_key("Key (v2)!") == "key-v2"
    )
