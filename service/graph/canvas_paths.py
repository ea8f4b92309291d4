"""Moves seen from a canvas: file nodes and group backgrounds follow the files they name.

A JSON Canvas file names vault files by full path in `"file"` (file nodes) and `"background"`
(group nodes). When a move plan rewrites the notes that link to a moved file, a canvas among
them gets those fields rewritten here (wikilinks inside its text nodes are handled like any
note's, by `service.graph.rewrite`). A field names a moved file as the index reads it (a vault
path in any letter case or Unicode form, '/' first or '.md' left out: `PathSet.exact`), and is
written as the file's new path. Only the quoted value changes: indentation, key order and
every other byte of the file stay as they were, so the file remains what Obsidian wrote.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping

from service.graph.linkpath import nfc
from service.graph.rewrite import LineChange, LineChanges, Rewrite, joined
from service.markdown import line_ends

_FIELD = re.compile(r'("(?:file|background)"\s*:\s*)("(?:[^"\\\n]|\\.)*")')


def is_canvas(path: str) -> bool:
    return path.lower().endswith(".canvas")


def rewrite_canvas(done: Rewrite, moved: Mapping[str, str]) -> Rewrite:
    """`done` (the text-link rewrite of a canvas, every changed line kept) with its file paths following `moved`."""
    view = line_ends.lf(done.text)  # a canvas with lone CRs: its lines as `rewrite_note` numbered its changes
    lines = view.split("\n")
    changes = {c.line: c for c in done.changes}
    folded: dict[str, str] = {}  # lower-case old path -> new path, made at the first field not written as a moved path

    def new_path(value: str) -> str | None:
        if (exact := moved.get(value)) is not None:
            return exact
        if not folded:
            for old in sorted(moved, reverse=True):  # of paths alike but for case, the smallest (`PathSet`)
                folded[old.lower()] = moved[old]
        key = posixpath.normpath(nfc(value).strip().lstrip("/")).lower()
        return folded.get(key) or folded.get(f"{key}.md")

    for no, original in enumerate(lines):

        def swap(m: re.Match[str]) -> str:
            try:
                value = json.loads(m.group(2))
            except ValueError:
                return m.group(0)
            new = new_path(value) if isinstance(value, str) and value.strip() else None
            return m.group(1) + json.dumps(new, ensure_ascii=False) if new else m.group(0)

        line = _FIELD.sub(swap, original)
        if line != original:
            lines[no] = line
            first = changes.get(no + 1)
            changes[no + 1] = LineChange(no + 1, first.before if first else original.rstrip("\r"), line.rstrip("\r"))
    return Rewrite(joined(done.text, view, lines), LineChanges(changes=[changes[k] for k in sorted(changes)]))
