"""The frontmatter of an entity note a write leaves as the person wrote it.

A memory write changes at most the memory properties (`updated` at each write; `name` for a note
that had none), so the block read from the note (`Entity.front_read`) is written back line for
line: the properties a person added in Obsidian keep their spelling (`birthday: 1990-03-04` stays a
date, `phone: +4412345` keeps its `+`), their order, their list style and their comments. A changed
memory property replaces its own line, one the note lacks is added at the end of the block (none
for an empty value: it reads back the same). When a changed property's line cannot be told apart
(a quoted key, a value over several lines) or the edited block would not read back with the same
keys, None: the caller writes the whole block anew (`model.render`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from service.markdown.frontmatter import parse_yaml


def kept_front(
    raw: str,
    keys: frozenset[str],
    read: dict[str, Any],
    now: dict[str, Any],
    written: Callable[[Any], str],
) -> str | None:
    """The block `raw` (LF line ends, without its fences; `keys` its top-level keys) with each
    memory property whose value `now` differs from the one `read` from it written as `written`
    renders it; None when that cannot be done line by line."""
    body = raw.removesuffix("\n")  # the block's last line ends before the closing fence
    lines = body.split("\n") if body else []
    added: list[str] = []
    for key, value in now.items():
        if value == read.get(key):
            continue
        line = f"{key}: {written(value)}"
        if key not in keys:
            if value not in ("", []):
                added.append(line)
            continue
        at = [i for i, text in enumerate(lines) if re.match(rf"{re.escape(key)}[ \t]*:(?:[ \t]|$)", text)]
        if len(at) != 1 or (at[0] + 1 < len(lines) and lines[at[0] + 1][:1] in (" ", "\t", "-")):
            return None
        lines[at[0]] = line
    if lines and not lines[-1].strip() and added:
        lines.pop()  # the blank line the block ended with stays last
        added.append("")
    text = "\n".join(lines + added)
    data, error = parse_yaml(text)
    if error is not None or set(data) != keys | {line.split(":", 1)[0] for line in added if line}:
        return None
    return f"---\n{text}\n---\n" if lines or added else "---\n---\n"
