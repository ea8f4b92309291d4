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


@pytest.mark.parametrize(
    ("position", "expected"),
    [
        (
            "before",
            "## Goals",
        ),
        ("after", "## Goals\nNEW\n"),
        ("prepend", "## Goals\nNEW\n"),
        ("append", "More.\nNEW\n"),
        ("replace", "## Goals\nNEW\n\n## Risks"),
    ],
)
def test_patch_positions_relative_to_a_section(position: sections.Position, expected: str) -> None:
    span = sections.find_heading(DOC, ["Goals"])
    out = sections.patch_lines(DOC, span, position, "NEW\n")
    if position == "before":
        assert "NEW\n## Goals" in out
    else:
        assert expected in out
    assert out.count("NEW") == 1


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
