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
from service.markdown.property_links import property_links

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


class _Line(str):
    """A raw frontmatter line that counts the characters its searches (`in`, find, index) go over."""

    scanned = 0

    def __contains__(self, part: object) -> bool:
        _Line.scanned += len(self)
        return str.__contains__(self, part)  # type: ignore[operator]

    def find(self, *args: object) -> int:  # type: ignore[override]
        _Line.scanned += len(self)
        return str.find(self, *args)  # type: ignore[arg-type]

    def index(self, *args: object) -> int:  # type: ignore[override]
        _Line.scanned += len(self)
        return str.index(self, *args)  # type: ignore[arg-type]


class _Raw(str):
    """The frontmatter text whose lines are `_Line`s."""

    def split(self, sep: str | None = None, maxsplit: int = -1) -> list[str]:  # type: ignore[override]
        return [_Line(part) for part in str.split(self, sep, maxsplit)]


def _one_line(n: int, escaped: bool = False) -> tuple[str, dict[str, object]]:
    values = [f"[[{i}]]" for i in range(n)]
    written = [f'"[[\\u0054{i}]]"' if escaped else f'"{v}"' for i, v in enumerate(values)]
    read = [f"[[T{i}]]" for i in range(n)] if escaped else values
    return "before: x\nr: [" + ", ".join(written) + "]\nafter: '[[Z]]'\n", {"before": "x", "r": read, "after": "[[Z]]"}


@pytest.mark.parametrize("escaped", [False, True])
def test_many_links_on_one_line_are_placed_without_rescanning_the_line(escaped: bool) -> None:
    """A flow list of 5,000 links on one line (a form scripts and plugins write): each link's line
    was found by searching the line from its start, 5,000 x ~50,000 characters (quadratic: 19 s
    of CPU for one 1 MB note of 85,000); a link never written as read (escapes) scanned the whole
    line each time. The places are found in one pass now: the searches go over the text a few
    times at most (counted, not timed)."""
    raw, props = _one_line(5000, escaped)
    _Line.scanned = 0
    got = list(property_links(_Raw(raw), props, 1, lambda inner: (inner, None, None)))
    assert len(got) == 5001
    assert {line for key, *_, line in got if key == "r"} == {2} and got[-1] == ("after", "Z", None, None, 3)
    assert _Line.scanned <= 4 * len(raw), _Line.scanned


def test_the_same_link_on_consecutive_lines_gets_each_its_own_line() -> None:
    """Identical links of one key on consecutive lines: each is at its own line (was the first's)."""
    text = '---\nrel:\n  - "[[Hub]]"\n  - "[[Hub]]"\n  - "[[Hub]]"\nflow: ["[[A]]", "[[A]]"]\n  \n---\n'
    assert [(p, t, line) for p, t, _s, _a, _e, line in _links(text)] == [
        ("rel", "Hub", 2),
        ("rel", "Hub", 3),
        ("rel", "Hub", 4),
        ("flow", "A", 5),
        ("flow", "A", 5),
    ]
    big = "---\nrel:\n" + '  - "[[Hub]]"\n' * 200 + "---\n"
    assert [ln.line for ln in parse_note("N.md", big).links] == list(range(2, 202))
