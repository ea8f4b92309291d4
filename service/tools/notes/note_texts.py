"""notes domain: the text a note-making call writes, checked before anything is written.

`yaml_block` is a frontmatter block of properties (create_note's `frontmatter`), in the caller's
key order; `refuse_frontmatter_bomb` refuses a note whose YAML expands past `[limits]`
(create_note, write_note, bulk_create_notes). Touches nothing.
"""

from __future__ import annotations

import io
from typing import Any

from service.errors import ValidationFailed
from service.markdown import frontmatter as fm


def yaml_block(properties: dict[str, Any]) -> str:
    from ruamel.yaml import YAML  # loaded on first use, not at start-up

    yaml = YAML()  # round-trip dumper: keeps the caller's key order
    yaml.default_flow_style = False
    yaml.allow_unicode = True
    yaml.indent(mapping=2, sequence=2, offset=0)
    buf = io.StringIO()
    yaml.dump(properties, buf)
    return f"---\n{buf.getvalue()}---\n"


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
