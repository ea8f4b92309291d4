"""rename_tag's line edit of a frontmatter whose tags are a block list of plain items.

`tags:` followed by `- seedling` lines is the shape Obsidian's Properties view writes. Renaming a
tag there rewrites the item's text on its own line: no YAML round trip (ruamel's costs ~10 ms a
note: renaming a tag of 283 notes of a real vault took 10 s on a loaded machine) and no other
line re-emitted (the round trip turned `aliases: ` and `tags: ` into `aliases:` and `tags:` and
dropped trailing spaces of items in every note it renamed a tag in). The edited block is read back
as YAML and must equal the original with the renamed tags and nothing else; any other shape (a flow
list, quoted items, comments, a `tag:` key, CR line ends) answers None and the caller does the
round trip as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from service.markdown import frontmatter as fm
from service.markdown.yaml_edit import norm_tag

_KEY = re.compile(r"^tags[ \t]*:[ \t]*$")
_ITEM = re.compile(r"^([ \t]*-[ \t]*)(.*?)([ \t]*)$")
_PLAIN = re.compile(r"^[^\s'\"#&*!|>{}\[\],%@`-][^#]*$")


def renamed_items(text: str, rename: Callable[[str], str | None]) -> str | None:
    """`text` with each plain item of its frontmatter's block `tags:` list that `rename` maps
    (it gets the tag without '#', None: unchanged) rewritten on its line; None when the
    frontmatter is not of that shape or the edit would not read back as exactly that rename."""
    found = fm.fences(text)
    raw = found.raw
    if raw is None or "\r" in raw:
        return None
    start = text.find("\n") + 1
    if not text.startswith(raw, start):
        return None
    lines = raw.split("\n")
    keys = [i for i, line in enumerate(lines) if _KEY.match(line)]
    if len(keys) != 1:
        return None
    for i in range(keys[0] + 1, len(lines)):
        item = _ITEM.match(lines[i])
        if item is None or not lines[i].lstrip().startswith("-"):
            break
        value = item[2]
        if not value:
            continue
        if not _PLAIN.match(value):
            return None
        name = rename(norm_tag(value))
        if name is not None and name != value:
            lines[i] = item[1] + name + item[3]
    edited = "\n".join(lines)
    if edited == raw:
        return text if _reads_back(raw, raw, rename) else None
    if not _reads_back(raw, edited, rename):
        return None
    return text[:start] + edited + text[start + len(raw) :]


def _reads_back(raw: str, edited: str, rename: Callable[[str], str | None]) -> bool:
    """Whether `edited` reads as `raw` with its tags list renamed item by item and nothing else."""
    before, error = fm.parse_yaml(raw)
    after, error_after = fm.parse_yaml(edited)
    if error is not None or error_after is not None or not isinstance(before.get("tags"), list):
        return False
    expected: dict[str, Any] = dict(before)
    expected["tags"] = [item if item is None else (rename(norm_tag(str(item))) or item) for item in before["tags"]]
    return after == expected
