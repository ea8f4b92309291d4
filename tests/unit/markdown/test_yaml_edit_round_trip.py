"""Round-trip frontmatter edits keep order, comments, quoting and untouched keys."""

from __future__ import annotations

import pytest
from ruamel.yaml.comments import CommentedMap

from service.errors import ValidationFailed
from service.markdown.tag_edit import check_tag, edit_inline_tags, renamed
from service.markdown.yaml_edit import edit_frontmatter, set_tags, tag_list, to_yaml_value

ODD = """---
# a leading comment
title: 'It''s "quoted"'   # trailing comment
status: "active"
hex: 0x1F
when: 2024-01-01
tags:
  - one   # first tag
  - two
aliases: [a, "b c"]
nested:
  deep: yes
empty:
---
# Body #one
"""


def test_unchanged_edit_returns_the_text_byte_for_byte() -> None:
    assert edit_frontmatter(ODD, "n.md", lambda data: None) == ODD


def test_setting_one_key_leaves_every_other_line_as_written() -> None:
    def change(data: CommentedMap) -> None:
        data["hex"] = 32
        data["added"] = to_yaml_value(["x", "y z"])

    out = edit_frontmatter(ODD, "n.md", change)
    assert out.replace("hex: 32", "hex: 0x1F").replace("added:\n  - x\n  - y z\n", "") == ODD


def test_tags_edited_in_place_keep_item_comments_and_indentation() -> None:
    def change(data: CommentedMap) -> None:
        _, tags = tag_list(data)
        set_tags(data, [*[t for t in tags if t != "two"], "three"])

    out = edit_frontmatter(ODD, "n.md", change)
    assert "tags:\n  - one   # first tag\n  - three\naliases" in out


def test_zero_indented_lists_stay_zero_indented() -> None:
    text = "---\ntags:\n- a\n- b\nx: 1\n---\nbody"
    assert edit_frontmatter(text, "n.md", lambda d: d.__setitem__("x", 2)) == "---\ntags:\n- a\n- b\nx: 2\n---\nbody"


def test_note_without_frontmatter_gets_one_and_crlf_is_kept() -> None:
    assert edit_frontmatter("Body\n", "n.md", lambda d: d.__setitem__("k", "v")) == "---\nk: v\n---\nBody\n"
    crlf = "---\r\na: 1\r\n---\r\nBody\r\n"
    assert edit_frontmatter(crlf, "n.md", lambda d: d.__setitem__("a", 2)) == "---\r\na: 2\r\n---\r\nBody\r\n"


def test_invalid_yaml_is_a_validation_error() -> None:
    with pytest.raises(ValidationFailed) as info:
        edit_frontmatter("---\na: [b\n---\nx", "n.md", lambda d: None)
    assert info.value.details["reason"] == "invalid_frontmatter"


def test_string_tags_are_read_and_written_back_as_a_list() -> None:
    def change(data: CommentedMap) -> None:
        _, tags = tag_list(data)
        set_tags(data, [*tags, "c"])

    assert edit_frontmatter("---\ntags: a, b\n---\n", "n.md", change) == "---\ntags:\n  - a\n  - b\n  - c\n---\n"


def test_nested_rename_rule() -> None:
    assert renamed("proj", "proj", "work") == "work"
    assert renamed("Proj/alpha", "proj", "work") == "work/alpha"
    assert renamed("project", "proj", "work") is None


def test_inline_tags_outside_code_links_and_urls_are_edited() -> None:
    text = "---\ntags: [x]\n---\n#proj a `#proj` [[N#proj]] http://h/#proj #proj/a\n```\n#proj\n```\n"
    out = edit_inline_tags(text, lambda t: renamed(t, "proj", "work"))
    assert out == "---\ntags: [x]\n---\n#work a `#proj` [[N#proj]] http://h/#proj #work/a\n```\n#proj\n```\n"
    removed = edit_inline_tags("a #proj b #proj\n", lambda t: "" if t == "proj" else None)
    assert removed == "a b\n"


def test_tag_names_are_validated() -> None:
    assert check_tag("#proj/a") == "proj/a"
    for bad in ("", "#", "12", "a b", "a//b"):
        with pytest.raises(ValidationFailed):
            check_tag(bad)
