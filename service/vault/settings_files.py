"""Obsidian's own settings files (`.obsidian/*.json`, plugin `data.json`), read-only.

The path ACL hides `.obsidian/` from every note tool; the tools that follow Obsidian's settings
(periodic notes, templates) read these files through here instead. A file that is missing, not
JSON, larger than `MAX_BYTES`, or reached through a symlink leaving the vault reads as None:
Obsidian then uses its defaults, and so do the callers. A community plugin's `data.json` also
reads as None when `.obsidian/community-plugins.json` (the list of enabled plugin ids) exists
and does not name the plugin: Obsidian ignores a disabled plugin's settings, so we do too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

MAX_BYTES = 1 << 20


COMMUNITY_PLUGINS = ".obsidian/community-plugins.json"
_PLUGIN_DATA = re.compile(r"\.obsidian/plugins/([^/]+)/data\.json")


def read_json(root: Path, rel: str) -> Any | None:
    """The parsed JSON of the vault file `rel` (e.g. `.obsidian/daily-notes.json`), or None."""
    plugin = _PLUGIN_DATA.fullmatch(rel)
    if plugin is not None and not plugin_enabled(root, plugin.group(1)):
        return None
    return _read(root, rel)


def template_folders(root: Path) -> list[str]:
    """The folders of the vault's template notes: the core Templates plugin's (`folder` of
    `.obsidian/templates.json`) and Templater's (`templates_folder` of its `data.json`), without
    slashes at either end; none when neither is set."""
    out = []
    for rel, key in (
        (".obsidian/templates.json", "folder"),
        (".obsidian/plugins/templater-obsidian/data.json", "templates_folder"),
    ):
        data = read_json(root, rel)
        value = data.get(key) if isinstance(data, dict) else None
        folder = value.strip().strip("/") if isinstance(value, str) else ""
        if folder and folder not in out:
            out.append(folder)
    return out


def plugin_enabled(root: Path, plugin_id: str) -> bool:
    """Whether the community plugin is on: named in `community-plugins.json`, or that file is
    missing or unreadable (nothing says it is off, so its settings are taken as they are)."""
    enabled = _read(root, COMMUNITY_PLUGINS)
    if not isinstance(enabled, list):
        return True
    return plugin_id in enabled


def _read(root: Path, rel: str) -> Any | None:
    path = root / rel
    try:
        real = path.resolve(strict=True)
        if not real.is_relative_to(root.resolve()) or not real.is_file() or real.stat().st_size > MAX_BYTES:
            return None
        return json.loads(real.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError, RecursionError):  # RecursionError: nested past the parser's limit
        return None
