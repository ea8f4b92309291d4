"""notes domain: the text a note-making call writes, checked before anything is written.

`yaml_block` is a frontmatter block of properties (create_note's `frontmatter`), in the caller's
key order, as the property tools write it; `refuse_frontmatter_bomb` refuses a note whose YAML expands past `[limits]`
(create_note, write_note, bulk_create_notes); `not_into_open_block` refuses text appended after a code block
or comment the note never closes (append_note, write_note's append). Touches nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from service.errors import ValidationFailed
from service.markdown import frontmatter as fm
from service.markdown import yaml_edit
from service.markdown.fences import left_open

if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedMap


def yaml_block(properties: dict[str, Any]) -> str:
    """The frontmatter block of `properties`, in their order, written by the property tools' own
    writer (`yaml_edit.edit_frontmatter`, values as `set_properties` writes them): as Obsidian
    writes properties — `  - item`, double quotes only where needed, a text of several lines as
    a literal block, an ISO date unquoted — so a later property edit rewrites nothing of it."""

    def put(data: CommentedMap) -> None:
        for key, value in properties.items():
            data[yaml_edit.yaml_text(str(key))] = yaml_edit.to_yaml_value(value)

    return yaml_edit.edit_frontmatter("", "frontmatter", put)


def refuse_frontmatter_bomb(text: str, field: str) -> None:
    """A note whose YAML expands past `[limits]` (aliases) is refused before anything is written."""
    if "*" not in text:  # no alias, no expansion: skip the parse
        return
    front = fm.split(text)
    if front.error is not None and front.error.startswith(fm.EXPANSION_ERROR):
        raise ValidationFailed(
            front.error,
            details={"field": field, "reason": "frontmatter_error", "frontmatter_error": front.error},
            hint="Write the values out instead of repeating YAML aliases (*name), or nest them less deeply.",
        )


_OPENERS = ("```", "~~~", "%%", "<!--")


def not_into_open_block(old: str, content: str) -> None:
    """`validation_error` (reason `left_open`, as process_capture's filing) when the note `old`
    (its LF form, ending in a line break) ends inside a code block or comment it never closes and
    `content`, added after it, does not close it: Obsidian would show the text as code, or hide
    it. Content that closes the block (more code, then the closing fence) is added as given."""
    if any(mark in old for mark in _OPENERS):  # nearly every note: no scan
        body = fm.fences(old).body_line
        found = left_open(old.split("\n"), body)
        if found is not None and left_open((old + content).split("\n"), body) == found:
            raise _left_open(*found)


def inserted_outside_open_block(old: str, new: str) -> str:
    """`new`, patch_note's insert into `old` (LF forms) at a heading or block, unless the lines it
    adds land inside the code block or comment `old` leaves open at its end (a section that ends
    in a fence never closed) and do not close it: then `validation_error`, as `not_into_open_block`."""
    if any(mark in old for mark in _OPENERS):
        body = fm.fences(old).body_line
        before, after = old.split("\n"), new.split("\n")
        found = left_open(before, body)
        if found is not None and after[: found[1] + 1] == before[: found[1] + 1] and left_open(after, body) == found:
            raise _left_open(*found)
    return new


def _left_open(mark: str, line: int) -> ValidationFailed:
    code = mark[:1] in "`~"
    what = f"a code block ({mark})" if code else f"a comment ({mark})"
    closing = mark if code else "%%" if mark == "%%" else "-->"
    return ValidationFailed(
        f"the note ends inside {what} opened at line {line + 1} that it never closes: the added text would "
        + ("show as code" if code else "be hidden")
        + " in Obsidian",
        details={"field": "content", "reason": "left_open", "open": mark, "line": line + 1},
        hint=f"Start content with a line {closing} to close it first, end content with one if it is meant for "
        "that block, or close it in the note (patch_note).",
    )
