"""parse_note reads wikilinks written in frontmatter property values as links of the note, marked
with the property (top-level key) they are in, at the frontmatter line they are written on, as
Obsidian counts them (its backlinks, graph, Dataview's file.outlinks). Before, a note's links were
its body's only."""

from __future__ import annotations

import pytest

from service.indexer import caps
from service.indexer.reading import NoteInput
from service.indexer.rows import prepare
from service.markdown.parse import Link, parse_note

NOTE = (
    "---\n"  # 0
    'up: "[[Hub]]"\n'  # 1
    "related:\n"  # 2
    '  - "[[Other|o]]"\n'  # 3
    "  - '[[Gone#Part]]'\n"  # 4
    'flow: ["[[A]]",  "[[B]]"]   # a comment\n'  # 5
    "'quoted key': see [[C]] and [[D]]\n"  # 6
    'escaped: "[[H\\u0075b]]"\n'  # 7
    "nested:\n"  # 8
    "  inner: '[[E]]'\n"  # 9
    'pic: "![[img.png]]"\n'  # 10
    'md: "[x](X.md)"\n'  # 11
    "title: not a link\n"  # 12
    "---\n"  # 13
    "Body [[Body]].\n"  # 14
)


def _links(text: str) -> list[tuple[str | None, str, str | None, str | None, bool, int]]:
    return [(ln.property, ln.target, ln.subpath, ln.alias, ln.embed, ln.line) for ln in parse_note("N.md", text).links]


def test_every_wikilink_of_a_property_value_is_a_link_marked_with_its_key_and_line() -> None:
    assert _links(NOTE) == [
        ("up", "Hub", None, None, False, 1),
        ("related", "Other", None, "o", False, 3),
        ("related", "Gone", "Part", None, False, 4),
        ("flow", "A", None, None, False, 5),
        ("flow", "B", None, None, False, 5),
        ("quoted key", "C", None, None, False, 6),
        ("quoted key", "D", None, None, False, 6),
        ("escaped", "Hub", None, None, False, 7),  # read as YAML reads it; its key's line
        ("nested", "E", None, None, False, 9),
        ("pic", "img.png", None, None, False, 10),  # a property shows no file: not an embed
        (None, "Body", None, None, False, 14),  # the body's links follow, unmarked
    ]
    assert all(ln.kind == "wikilink" for ln in parse_note("N.md", NOTE).links)


@pytest.mark.parametrize(
    "text",
    [
        "---\nup: [[Hub\n---\nBody [[Body]].\n",  # invalid YAML: no properties, no property links
        "---\ntitle: plain\n---\nBody [[Body]].\n",
        "Body [[Body]].\n---\nup: '[[Hub]]'\n---\n",  # not frontmatter: the body's link of line 2 only
        "---\nup: '[[Hub]]'\nBody [[Body]].\n",  # no closing fence: no frontmatter
    ],
)
def test_only_a_valid_frontmatter_block_gives_property_links(text: str) -> None:
    assert all(ln.property is None for ln in parse_note("N.md", text).links)


def test_body_links_are_unchanged() -> None:
    assert parse_note("N.md", "a [[B|b]] ![[c.png]]\n").links == [
        Link("B", None, "b", False, "wikilink", 0),
        Link("c.png", None, None, True, "wikilink", 0),
    ]


def test_property_links_are_index_rows_resolved_and_capped_like_the_body_links(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "---\nrel:\n" + "".join(f"  - '[[T{i}]]'\n" for i in range(5)) + "---\nBody [[T0]].\n"
    item = NoteInput("N.md", text, 1.0, 1.0, len(text), "etag")
    prep = prepare(item, None)
    assert [(r[0], r[5], r[6], r[7]) for r in prep.links] == [
        *((f"T{i}", "wikilink", 2 + i, "rel") for i in range(5)),
        ("T0", "wikilink", 8, None),
    ]
    monkeypatch.setattr(caps, "MAX_ROWS", 3)
    capped = prepare(item, None)
    assert [r[0] for r in capped.links] == ["T0", "T1", "T2"] and "links 6 > 3" in capped.capped


def test_a_yaml_alias_repeats_the_link_at_its_key_line_and_many_stay_within_the_caps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _links("---\na: &x '[[Hub]]'\nb: *x\nc: [*x, *x]\n---\n") == [
        ("a", "Hub", None, None, False, 1),
        ("b", "Hub", None, None, False, 2),
        ("c", "Hub", None, None, False, 3),
        ("c", "Hub", None, None, False, 3),
    ]
    # 5,000 aliases of one link value: every one a link (at its key's line), cut by the row cap
    text = "---\na: &x '[[Hub]]'\nb: [" + ", ".join(["*x"] * 5000) + "]\n---\n"
    assert len(parse_note("N.md", text).links) == 5001
    monkeypatch.setattr(caps, "MAX_ROWS", 1000)
    prep = prepare(NoteInput("N.md", text, 1.0, 1.0, len(text), "etag"), None)
    assert len(prep.links) == 1000 and {r[6] for r in prep.links[1:]} == {2} and "links 5001 > 1000" in prep.capped
