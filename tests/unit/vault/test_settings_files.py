"""Obsidian's settings files: read safely, and a disabled community plugin's settings unread."""

from __future__ import annotations

import json
from pathlib import Path

from service.vault.settings_files import plugin_enabled, read_json

DATA = ".obsidian/plugins/calendar/data.json"


def _write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


def test_plugin_data_is_read_while_the_plugin_is_enabled_or_nothing_says_otherwise(tmp_path: Path) -> None:
    _write(tmp_path, DATA, json.dumps({"weekStart": "monday"}))
    assert read_json(tmp_path, DATA) == {"weekStart": "monday"}  # no community-plugins.json
    _write(tmp_path, ".obsidian/community-plugins.json", json.dumps(["dataview", "calendar"]))
    assert plugin_enabled(tmp_path, "calendar") and read_json(tmp_path, DATA) == {"weekStart": "monday"}
    _write(tmp_path, ".obsidian/community-plugins.json", json.dumps(["dataview"]))
    assert not plugin_enabled(tmp_path, "calendar") and read_json(tmp_path, DATA) is None
    assert read_json(tmp_path, ".obsidian/community-plugins.json") == ["dataview"]  # other files as before
    _write(tmp_path, ".obsidian/community-plugins.json", "{not json")
    assert read_json(tmp_path, DATA) == {"weekStart": "monday"}  # unreadable: nothing says it is off


def test_missing_broken_and_escaping_files_read_as_none(tmp_path: Path) -> None:
    assert read_json(tmp_path, ".obsidian/app.json") is None
    _write(tmp_path, ".obsidian/app.json", "[1,")
    assert read_json(tmp_path, ".obsidian/app.json") is None
    outside = tmp_path.parent / f"{tmp_path.name}-outside.json"
    outside.write_text("{}", encoding="utf-8")
    (tmp_path / ".obsidian" / "types.json").symlink_to(outside)
    assert read_json(tmp_path, ".obsidian/types.json") is None
