"""Obsidian's own settings files (`.obsidian/*.json`, plugin `data.json`), read-only.

The path ACL hides `.obsidian/` from every note tool; the tools that follow Obsidian's settings
(periodic notes, templates) read these files through here instead. A file that is missing, not
JSON, larger than `MAX_BYTES`, or reached through a symlink leaving the vault reads as None:
Obsidian then uses its defaults, and so do the callers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MAX_BYTES = 1 << 20


def read_json(root: Path, rel: str) -> Any | None:
    """The parsed JSON of the vault file `rel` (e.g. `.obsidian/daily-notes.json`), or None."""
    path = root / rel
    try:
        real = path.resolve(strict=True)
        if not real.is_relative_to(root.resolve()) or not real.is_file() or real.stat().st_size > MAX_BYTES:
            return None
        return json.loads(real.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return None
