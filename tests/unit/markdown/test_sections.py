"""Heading-path sections, block ids and text anchors."""

from __future__ import annotations

import pytest

from service.errors import ValidationFailed
from service.markdown import sections

DOC = """---
title: Plan
---
# Plan

Intro.

## Goals

Ship it. ^goal-1

### Details

More.

## Risks

None yet.

```
## Not a heading
```
"""


def test_a_section_includes_its_nested_subsections() -> None:
    span = sections.find_heading(DOC, ["Plan", "Goals"])
    text = sections.section_text(DOC, span)
    assert text.startswith("## Goals") and "### Details" in text and "More." in text
    assert "## Risks" not in text


def test_heading_path_must_follow_nesting() -> None:
    assert sections.find_heading(DOC, ["Goals", "Details"]).start == DOC.split("\n").index("### Details")
    with pytest.raises(ValidationFailed) as info:
        sections.find_heading(DOC, ["Risks", "Details"])
    assert info.value.details["reason"] == "not_found"


def test_headings_in_code_fences_do_not_count() -> None:
    with pytest.raises(ValidationFailed):
        sections.find_heading(DOC, ["Not a heading"])


def test_ambiguous_heading_names_every_match() -> None:
    doc = "# A\n## Notes\nx\n# B\n## Notes\ny\n"
    with pytest.raises(ValidationFailed) as info:
        sections.find_heading(doc, ["Notes"])
    assert info.value.details["reason"] == "ambiguous" and info.value.details["lines"] == [2, 5]
    assert "y" in sections.section_text(doc, sections.find_heading(doc, ["B", "Notes"]))


NESTED = "# Top\n\nIntro.\n\n## A\n\nText a. ^a1\n\n### A.1\n\ndeep\n\n## B\n\n- one\n- two ^b2\n"


def _heading(path: list[str], position: sections.Position, content: str = "NEW\n") -> str:
    return sections.patch_lines(NESTED, sections.find_heading(NESTED, path), position, content)


def _blk(block: str, position: sections.Position, content: str = "NEW\n") -> str:
    span = sections.find_block(NESTED, block)
    return sections.patch_lines(NESTED, span, position, content, keep_block_id=block)


def _anchor(anchor: str, position: sections.Position, content: str = "NEW") -> str:
    return sections.patch_anchor(NESTED, sections.find_anchor(NESTED, anchor), anchor, position, content)


HEAD = "# Top\n\nIntro.\n\n"
A_BODY = "\nText a. ^a1\n\n### A.1\n\ndeep\n\n"
B = "## B\n\n- one\n- two ^b2\n"


@pytest.mark.parametrize(
    ("target", "position", "expected"),
    [
        # a section with a nested sub-section
        (["Top", "A"], "before", HEAD + "NEW\n\n## A\n" + A_BODY + B),
        (["Top", "A"], "prepend", HEAD + "## A\nNEW\n" + A_BODY + B),
        (["Top", "A"], "append", HEAD + "## A\n" + A_BODY + "NEW\n\n" + B),
        (["Top", "A"], "after", HEAD + "## A\n" + A_BODY + "NEW\n\n" + B),
        (["Top", "A"], "replace", HEAD + "## A\nNEW\n\n" + B),
        # the nested sub-section itself
        (["A", "A.1"], "before", HEAD + "## A\n\nText a. ^a1\n\nNEW\n\n### A.1\n\ndeep\n\n" + B),
        (["A", "A.1"], "prepend", HEAD + "## A\n\nText a. ^a1\n\n### A.1\nNEW\n\ndeep\n\n" + B),
        (["A", "A.1"], "append", HEAD + "## A\n" + A_BODY + "NEW\n\n" + B),
        (["A", "A.1"], "after", HEAD + "## A\n" + A_BODY + "NEW\n\n" + B),
        (["A", "A.1"], "replace", HEAD + "## A\n\nText a. ^a1\n\n### A.1\nNEW\n\n" + B),
        # the last section, ending in a list and the end of the note
        (["B"], "before", HEAD + "## A\n" + A_BODY + "NEW\n\n" + B),
        (["B"], "prepend", HEAD + "## A\n" + A_BODY + "## B\nNEW\n\n- one\n- two ^b2\n"),
        (["B"], "append", HEAD + "## A\n" + A_BODY + B + "\nNEW\n"),
        (["B"], "after", HEAD + "## A\n" + A_BODY + B + "\nNEW\n"),
        (["B"], "replace", HEAD + "## A\n" + A_BODY + "## B\nNEW\n"),
        # the outermost section: 'after' is the end of the note, not the line after '# Top'
        (["Top"], "after", NESTED + "\nNEW\n"),
        (["Top"], "prepend", "# Top\nNEW\n\nIntro.\n\n## A\n" + A_BODY + B),
    ],
)
def test_heading_positions(target: list[str], position: sections.Position, expected: str) -> None:
    assert _heading(target, position) == expected


def test_after_a_section_is_past_its_nested_subsections_not_after_its_heading_line() -> None:
    out = _heading(["Top", "A"], "after")
    assert out.index("NEW") > out.index("deep") and out.index("NEW") < out.index("## B")
    assert _heading(["Top", "A"], "after") != _heading(["Top", "A"], "prepend")


@pytest.mark.parametrize(
    ("block", "position", "content", "expected"),
    [
        ("a1", "before", "NEW\n", HEAD + "## A\n\nNEW\n\nText a. ^a1\n\n### A.1\n\ndeep\n\n" + B),
        ("a1", "prepend", "NEW\n", HEAD + "## A\n\nNEW\n\nText a. ^a1\n\n### A.1\n\ndeep\n\n" + B),
        ("a1", "after", "NEW\n", HEAD + "## A\n\nText a. ^a1\n\nNEW\n\n### A.1\n\ndeep\n\n" + B),
        ("a1", "append", "NEW\n", HEAD + "## A\n\nText a. ^a1\n\nNEW\n\n### A.1\n\ndeep\n\n" + B),
        ("a1", "replace", "Text b.\n", HEAD + "## A\n\nText b. ^a1\n\n### A.1\n\ndeep\n\n" + B),
        # a list-item block: another item joins the list, plain text becomes its own paragraph
        ("b2", "after", "- three\n", HEAD + "## A\n" + A_BODY + B + "- three\n"),
        ("b2", "after", "NEW\n", HEAD + "## A\n" + A_BODY + B + "\nNEW\n"),
        ("b2", "append", "NEW\n", HEAD + "## A\n" + A_BODY + B + "\nNEW\n"),
        ("b2", "before", "- 1.5\n", HEAD + "## A\n" + A_BODY + "## B\n\n- one\n- 1.5\n- two ^b2\n"),
        ("b2", "prepend", "NEW\n", HEAD + "## A\n" + A_BODY + "## B\n\n- one\n\nNEW\n\n- two ^b2\n"),
        ("b2", "replace", "- 2\n", HEAD + "## A\n" + A_BODY + "## B\n\n- one\n- 2 ^b2\n"),
    ],
)
def test_block_positions(block: str, position: sections.Position, content: str, expected: str) -> None:
    assert _blk(block, position, content) == expected


def test_text_after_a_block_never_glues_onto_its_paragraph() -> None:
    doc = "# N\nPara one\nstill para one ^p\nNext para\n"
    out = sections.patch_lines(doc, sections.find_block(doc, "p"), "after", "NEW\n", keep_block_id="p")
    assert out == "# N\nPara one\nstill para one ^p\n\nNEW\n\nNext para\n"


@pytest.mark.parametrize(
    ("position", "expected"),
    [
        ("before", "NEWIntro."),
        ("prepend", "NEWIntro."),
        ("after", "Intro.NEW"),
        ("append", "Intro.NEW"),
        ("replace", "\nNEW\n"),
    ],
)
def test_anchor_positions(position: sections.Position, expected: str) -> None:
    out = _anchor("Intro.", position)
    assert expected in out and out.count("NEW") == 1
    assert ("Intro." in out) is (position != "replace")


def test_sections_without_blank_lines_get_them_around_inserted_text() -> None:
    doc = "# H\ntext\n# I\nmore\n"
    h = sections.find_heading(doc, ["H"])
    assert sections.patch_lines(doc, h, "after", "NEW\n") == "# H\ntext\n\nNEW\n\n# I\nmore\n"
    assert sections.patch_lines(doc, h, "append", "NEW\n") == "# H\ntext\n\nNEW\n\n# I\nmore\n"
    assert sections.patch_lines(doc, h, "prepend", "NEW\n") == "# H\nNEW\n\ntext\n# I\nmore\n"
    assert sections.patch_lines(doc, h, "replace", "NEW\n") == "# H\nNEW\n\n# I\nmore\n"


def test_nothing_is_added_between_frontmatter_and_text_inserted_before_the_first_heading() -> None:
    span = sections.find_heading(DOC, ["Plan"])
    assert sections.patch_lines(DOC, span, "before", "NEW\n").startswith("---\ntitle: Plan\n---\nNEW\n\n# Plan")


def test_block_replace_keeps_the_block_id() -> None:
    span = sections.find_block(DOC, "goal-1")
    out = sections.patch_lines(DOC, span, "replace", "Ship it twice.\n", keep_block_id="goal-1")
    assert "Ship it twice. ^goal-1" in out and "Ship it. ^goal-1" not in out


def test_missing_block_and_anchor_errors() -> None:
    with pytest.raises(ValidationFailed):
        sections.find_block(DOC, "nope")
    with pytest.raises(ValidationFailed) as info:
        sections.find_anchor(DOC, "e")
    assert info.value.details["reason"] == "ambiguous"
    with pytest.raises(ValidationFailed):
        sections.find_anchor(DOC, "absent text")


def test_anchor_insertions_are_inline() -> None:
    offset = sections.find_anchor(DOC, "None yet.")
    assert "None yet. Really." in sections.patch_anchor(DOC, offset, "None yet.", "after", " Really.")
    assert "Some risk." in sections.patch_anchor(DOC, offset, "None yet.", "replace", "Some risk.")


def test_prepend_goes_after_frontmatter() -> None:
    out = sections.insert_after_frontmatter(DOC, "TOP\n")
    assert out.startswith("---\ntitle: Plan\n---\nTOP\n# Plan")
    assert sections.insert_after_frontmatter("plain\n", "TOP\n") == "TOP\nplain\n"
