"""The file a step's note or canvas argument names as written (`Final`: `Final.md`, a
`[[wikilink]]` without its brackets), for a plan's effects; NFC, as the tools make vault paths
(a name a macOS client spells in NFD is the file the call creates)."""

from __future__ import annotations

import unicodedata


def note_path(path: str, extension: str = ".md") -> str:
    text = unicodedata.normalize("NFC", path.strip())
    if text.startswith("[[") and text.endswith("]]"):
        text = text[2:-2]
    return text if "." in text.rsplit("/", 1)[-1] else f"{text}{extension}"


def note_file(target: str) -> str:
    """The note file a target names as written (`Final`: `Final.md`)."""
    return note_path(target)


def canvas_file(path: str) -> str:
    """The canvas file write_canvas's `path` names as written ('.canvas' optional)."""
    return note_path(path, ".canvas")
