"""Inline tag edits touch exactly the tags the parser indexes (rename_tag and remove_tags rely
on it): not code in callouts, indented code, HTML tags, HTML comments or HTML blocks."""

from __future__ import annotations

from service.markdown.parse import parse_note
from service.markdown.tag_edit import edit_inline_tags

NOTE = (
    "#t1 text\n"
    '<span style="color: #t2">x #t3</span>\n'
    "<!-- #t4 --> #t5\n<!--\n#t6\n-->\n\n"
    "<table>\n<td>#t7</td>\n</table>\n\n"
    "> [!note]\n> ```\n> #t8\n> ```\n> #t9\n\n"
    "    #t10 indented code\n\n"
    "- item\n\n    #t11 list continuation\n"
    "%% #t12 %%\n"
)


def test_edited_tags_are_the_indexed_tags() -> None:
    seen: list[str] = []

    def record(tag: str) -> str:
        seen.append(tag)
        return tag + "x"

    out = edit_inline_tags(NOTE, record)
    assert seen == parse_note("x.md", NOTE).inline_tags == ["t1", "t3", "t5", "t9", "t11", "t12"]
    for untouched in ("#t2", "#t4", "#t6", "#t7", "#t8", "#t10"):
        assert untouched + "x" not in out and untouched in out
    assert parse_note("x.md", out).inline_tags == [t + "x" for t in seen]
