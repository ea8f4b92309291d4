"""The file a step's note or canvas argument names as written (`Final`: `Final.md`, a
`[[wikilink]]` without its brackets), for a plan's effects; NFC, as the tools make vault paths
(a name a macOS client spells in NFD is the file the call creates)."""

from __future__ import annotations

import unicodedata


def _written(path: str) -> str:
    text = unicodedata.normalize("NFC", path.strip())
    return text[2:-2] if text.startswith("[[") and text.endswith("]]") else text


def note_path(path: str, extension: str = ".md") -> str:
    text = _written(path)
    return text if "." in text.rsplit("/", 1)[-1] else f"{text}{extension}"


def new_note(path: str) -> str:
    """The note a note tool writes at `path` when no note there is found by it: '.md' added unless
    the name ends in it, as the tools add it (`vault.paths.with_md`: 'Plan v1.2' is
    'Plan v1.2.md', not a file 'Plan v1.2'); a '.base' path is that base."""
    text = _written(path)
    return text if text.lower().endswith((".md", ".base")) else f"{text}.md"


def note_file(target: str) -> str:
    """The note file a target names as written (`Final`: `Final.md`)."""
    return note_path(target)


def canvas_file(path: str) -> str:
    """The canvas file write_canvas's `path` names as written ('.canvas' optional)."""
    return note_path(path, ".canvas")
