"""notes domain: the text a note-making call writes, checked before anything is written.

`yaml_block` is a frontmatter block of properties (create_note's `frontmatter`), in the caller's
key order, as the property tools write it; `refuse_frontmatter_bomb` refuses a note whose YAML expands past `[limits]`
(create_note, write_note, bulk_create_notes). Touches nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from service.errors import ValidationFailed
from service.markdown import frontmatter as fm
from service.markdown import yaml_edit

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
