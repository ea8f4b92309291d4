"""Rewriting link text for moved targets: every link form, nothing else on the line changes."""

from __future__ import annotations

from service.graph.linkpath import PathSet
from service.graph.rewrite import find_links, rewrite_note

FILES = ["Welcome.md", "Projects/Plan.md", "Projects/Notes/Idea.md", "Other/Plan 2.md", "img/pic.png"]


def _move(text: str, moved: dict[str, str], source: str = "Daily/Day.md", new_source: str | None = None) -> str:
    files = [*FILES, source]
    before = PathSet(files)
    after = PathSet(moved.get(f, f) for f in files)
    return rewrite_note(
        text,
        source_before=source,
        source_after=new_source or source,
        before=before,
        after=after,
        moved=moved,
    ).text


MOVE = {"Projects/Plan.md": "Archive/Old Plan.md"}


def test_wikilinks_keep_alias_heading_block_and_embed() -> None:
    text = "See [[Plan]], [[Projects/Plan#Goals|goals]], ![[Plan#^goal-1]] and [[Plan.md|x]].\n"
    assert _move(text, MOVE) == (
        "See [[Old Plan]], [[Archive/Old Plan#Goals|goals]], ![[Old Plan#^goal-1]] and [[Old Plan.md|x]].\n"
    )


def test_markdown_links_keep_encoding_angle_brackets_and_relative_form() -> None:
    text = "[a](Projects/Plan.md#Goals) [b](../Projects/Plan.md) [c](<Projects/Plan.md>) [d](https://x.org/Plan.md)\n"
    assert _move(text, MOVE) == (
        "[a](Archive/Old%20Plan.md#Goals) [b](../Archive/Old%20Plan.md) [c](<Archive/Old Plan.md>) "
        "[d](https://x.org/Plan.md)\n"
    )


def test_url_encoded_markdown_link_is_followed_and_stays_encoded() -> None:
    text = "[p](Other/Plan%202.md)\n"
    assert _move(text, {"Other/Plan 2.md": "Archive/Plan 3.md"}) == "[p](Archive/Plan%203.md)\n"


def test_code_unresolved_and_unrelated_links_are_untouched() -> None:
    text = "`[[Plan]]` [[Missing]] [[Welcome]]\n```\n[[Plan]]\n```\n"
    assert _move(text, MOVE) == text


def test_table_escaped_pipe_and_frontmatter_links_are_rewritten() -> None:
    text = '---\nrelated: "[[Plan]]"\n---\n| [[Plan\\|p]] |\n'
    assert _move(text, MOVE) == '---\nrelated: "[[Old Plan]]"\n---\n| [[Old Plan\\|p]] |\n'


def test_name_that_becomes_ambiguous_turns_into_a_path() -> None:
    # Moving Idea next to a new 'Plan' makes the bare name 'Plan' ambiguous for the moved one.
    text = "[[Plan]]\n"
    out = _move(text, {"Projects/Plan.md": "Archive/Plan.md"}, source="Projects/Notes/Idea.md")
    assert out == "[[Plan]]\n"
    files_moved = {"Other/Plan 2.md": "Archive/Plan.md"}
    assert _move("[[Plan 2]]\n", files_moved) == "[[Archive/Plan]]\n"


def test_relative_links_in_a_moved_note_are_updated() -> None:
    text = "[up](../Welcome.md) [[Welcome]]\n"
    out = _move(text, {"Daily/Day.md": "A/B/Day.md"}, source="Daily/Day.md", new_source="A/B/Day.md")
    assert out == "[up](../../Welcome.md) [[Welcome]]\n"


def test_changes_report_one_based_lines_before_and_after() -> None:
    files = PathSet(FILES)
    after = PathSet(MOVE.get(f, f) for f in FILES)
    result = rewrite_note(
        "x\n[[Plan]]\n", source_before="Welcome.md", source_after="Welcome.md", before=files, after=after, moved=MOVE
    )
    assert [(c.line, c.before, c.after) for c in result.changes] == [(2, "[[Plan]]", "[[Old Plan]]")]


def test_find_links_reports_target_spans() -> None:
    line = "a [[Plan#H|x]] [m](My%20Note.md)"
    found = find_links(line)
    assert [line[f.start : f.end] for f in found] == ["Plan", "My%20Note.md"]
    assert found[1].target == "My Note.md" and found[1].encoded
