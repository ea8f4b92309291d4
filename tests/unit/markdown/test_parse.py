"""Obsidian Markdown parsing: frontmatter, title, aliases, tags, links, headings, blocks, tasks."""

from __future__ import annotations

import pytest

from service.markdown.parse import parse_note

NOTE = """---
title: Custom
aliases: [One, "Two"]
tags: [fm/a, b]
---
# Heading One

Text #inline and #nested/tag/deep, not `#code` nor http://x.com/#frag or [[Note#Heading]].
See [[a]], [[b|alias]], [[c#Sec]], [[d#^blk]], [[#Local]], ![[img.png]], ![[Note2#Part|w]].
A [md](Folder/File.md) and [ext](https://example.com) and [rel](../up.md).

```
#notatag [[notalink]]
```

## Sub

- [ ] todo 📅 2026-01-05 ⏳ 2026-01-03 🔼
- [x] done ✅ 2026-01-02
- [ ] dv [due:: 2026-02-01] [scheduled:: 2026-01-20] [priority:: high]
- [/] in progress #work
Paragraph with id ^para-1
"""


@pytest.fixture(scope="module")
def parsed():  # type: ignore[no-untyped-def]
    return parse_note("Folder/Note.md", NOTE)


def test_frontmatter_title_aliases_and_tags(parsed) -> None:  # type: ignore[no-untyped-def]
    assert parsed.title == "Note" and parsed.search_title == "Note Custom One Two"  # name, title, aliases
    assert parsed.aliases == ["One", "Two"]
    assert parsed.properties["tags"] == ["fm/a", "b"]
    assert parsed.tags == ["fm/a", "b", "inline", "nested/tag/deep", "work"]


def test_tags_skip_code_inline_code_urls_and_heading_anchors(parsed) -> None:  # type: ignore[no-untyped-def]
    for absent in ("code", "notatag", "frag", "Heading"):
        assert absent not in parsed.tags


def test_wikilinks_embeds_and_markdown_links(parsed) -> None:  # type: ignore[no-untyped-def]
    got = [(lk.target, lk.subpath, lk.alias, lk.embed, lk.kind) for lk in parsed.links]
    assert got == [
        ("Note", "Heading", None, False, "wikilink"),
        ("a", None, None, False, "wikilink"),
        ("b", None, "alias", False, "wikilink"),
        ("c", "Sec", None, False, "wikilink"),
        ("d", "^blk", None, False, "wikilink"),
        ("", "Local", None, False, "wikilink"),
        ("img.png", None, None, True, "wikilink"),
        ("Note2", "Part", "w", True, "wikilink"),
        ("Folder/File.md", None, "md", False, "markdown"),
        ("../up.md", None, "rel", False, "markdown"),
    ]
    assert all(lk.target != "notalink" for lk in parsed.links)
    assert parsed.links[1].line == 8


def test_headings_and_block_ids(parsed) -> None:  # type: ignore[no-untyped-def]
    assert [(h.level, h.text, h.line) for h in parsed.headings] == [(1, "Heading One", 5), (2, "Sub", 15)]
    assert parsed.block_ids == {"para-1": 21}


def test_tasks_in_emoji_and_dataview_styles(parsed) -> None:  # type: ignore[no-untyped-def]
    tasks = [(t.status, t.due, t.scheduled, t.done, t.priority) for t in parsed.tasks]
    assert tasks == [
        (" ", "2026-01-05", "2026-01-03", None, "medium"),
        ("x", None, None, "2026-01-02", None),
        (" ", "2026-02-01", "2026-01-20", None, "high"),
        ("/", None, None, None, None),
    ]
    assert parsed.tasks[1].completed and parsed.tasks[3].tags == ("work",)


def test_invalid_yaml_is_reported_and_the_body_still_indexed() -> None:
    text = "---\nkey: [bad\n---\n# Body\n\nStill here #t [[x]]\n"
    p = parse_note("x.md", text)
    assert p.frontmatter_error and p.properties == {}
    assert p.title == "x" and p.search_title == "x Body" and p.tags == ["t"] and [lk.target for lk in p.links] == ["x"]
    assert p.body_line == 3


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("---\ntitle: From FM\n---\n# H1\n", "My File From FM"),
        ("Intro\n\n# First H1\n## Sub\n", "My File First H1"),
        ("# My File\n", "My File"),
        ("## Only H2\n", "My File"),
        ("", "My File"),
    ],
)
def test_title_rule(text: str, shown: str) -> None:
    """Obsidian's title is the file's base name, whatever the note says; full-text search also
    weighs the frontmatter title or first H1 as title text when that says something else."""
    parsed = parse_note("Dir/My File.md", text)
    assert parsed.title == "My File"
    assert parsed.search_title == shown


def test_frontmatter_tags_as_a_string_and_with_hashes() -> None:
    assert parse_note("x.md", "---\ntags: one, two three\n---\n").tags == ["one", "two", "three"]
    assert parse_note("x.md", '---\ntags: ["#one", "#a/b"]\n---\n').tags == ["one", "a/b"]
    # an unquoted '#' after a space starts a YAML comment, as in Obsidian
    assert parse_note("x.md", "---\ntags: one, #two\n---\n").tags == ["one"]


def test_angle_bracket_destinations_and_numbered_tasks() -> None:
    p = parse_note("x.md", "[a](<My Note.md#Part>) [b](<https://example.com/a b>) ![c](<img a.png>)\n")
    assert [(lk.target, lk.subpath, lk.embed) for lk in p.links] == [
        ("My Note.md", "Part", False),
        ("img a.png", None, True),
    ]
    tasks = parse_note("x.md", "1. [ ] first 📅 2026-03-01\n2) [x] second\n12. not a task\n").tasks
    assert [(t.status, t.due) for t in tasks] == [(" ", "2026-03-01"), ("x", None)]


def test_links_and_tags_in_code_are_neither() -> None:
    p = parse_note(
        "x.md", "```\n# no heading #fenced [[fenced]]\n```\n~~~\n[[tilde]]\n~~~\n`[[inline]]` ``#a [[b]]`` #real\n"
    )
    assert p.links == [] and p.headings == [] and p.tags == ["real"]


def test_tag_shapes() -> None:
    p = parse_note("x.md", "#123 #1a #a-b_c/d #é #tag, (#paren) a#glued #y2026\n")
    assert p.tags == ["1a", "a-b_c/d", "é", "tag", "y2026"]


def test_singular_frontmatter_keys_and_string_aliases() -> None:
    p = parse_note("x.md", "---\nalias: Solo\ntag: single\n---\nbody\n")
    assert p.aliases == ["Solo"] and p.tags == ["single"]
    assert parse_note("x.md", "---\naliases: One\n---\n").aliases == ["One"]


def test_block_ids_on_list_items_and_quotes_only_at_line_end() -> None:
    p = parse_note("x.md", "- item ^blk-1\n> quote ^q2\nText ^not here\n")
    assert p.block_ids == {"blk-1": 0, "q2": 1}


def test_fenced_code_inside_a_callout_is_code_and_ends_with_the_quote() -> None:
    text = (
        "> [!example]\n> ```md\n> #fake [[Ghost]]\n> - [ ] not a task\n> ```\n> #real [[Live]]\n\n"
        "> ```\n> #unclosed [[Gone]]\nafter the quote #after [[After]]\n"
    )
    p = parse_note("x.md", text)
    assert p.tags == ["real", "after"]
    assert [lk.target for lk in p.links] == ["Live", "After"]
    assert p.tasks == []


def test_indented_code_after_a_blank_line_is_code_but_not_under_a_list() -> None:
    text = (
        "Para #one\n\n    #code [[InCode]]\n\tstill #code2\n\nback #two\n"
        "    not code: continues a paragraph #three\n\n- item\n\n    list continuation #four [[Kept]]\n"
    )
    p = parse_note("x.md", text)
    assert p.tags == ["one", "two", "three", "four"]
    assert [lk.target for lk in p.links] == ["Kept"]


def test_fence_indented_under_a_list_item_is_code() -> None:
    p = parse_note("x.md", "- item\n\n    ```\n    #code [[X]]\n    ```\n- next #tag\n")
    assert p.tags == ["tag"] and p.links == []


def test_html_attributes_blocks_and_comments_make_no_tags_but_links_there_count() -> None:
    text = (
        '<span style="color: #dcddde">text #kept</span>\n'
        '<iframe src="#placeholder/link" style="border: 1px solid #ccc;"></iframe>\n'
        "<!-- #hidden [[HiddenLink]] -->\n<!-- open\n#inside [[Inside]]\n-->\n"
        "\n<table>\n<tr><td>--background: #1a1a1a</td></tr>\n</table>\n\n"
        "%% Obsidian comments count, as in Obsidian: #commented [[Hidden]] %%\n"
        "- red: #ff394d <br> green: #ace099\n"
    )
    p = parse_note("x.md", text)
    assert p.tags == ["kept", "commented", "ff394d", "ace099"]
    assert [lk.target for lk in p.links] == ["HiddenLink", "Inside", "Hidden"]


def test_dataview_parenthesis_fields_and_tasks_in_callouts() -> None:
    text = (
        "- [ ] pay (due:: 2026-01-01) (scheduled:: 2025-12-20) (priority:: low)\n"
        "> [!todo] Today\n> - [ ] call 📅 2026-02-03 #phone\n> > - [x] nested quote task\n"
    )
    tasks = parse_note("x.md", text).tasks
    assert [(t.line, t.status, t.due, t.scheduled, t.priority, t.tags) for t in tasks] == [
        (0, " ", "2026-01-01", "2025-12-20", "low", ()),
        (2, " ", "2026-02-03", None, None, ("phone",)),
        (3, "x", None, None, None, ()),
    ]
    assert tasks[1].text == "call 📅 2026-02-03 #phone"
