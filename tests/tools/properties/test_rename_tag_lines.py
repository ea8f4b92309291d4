"""rename_tag over notes whose tags are a block list (`tags:` then `- seedling`), the shape of the
Obsidian Hub vault's 6,500 notes: each note went through a YAML round trip, which took 10 s for
283 notes on a loaded machine and rewrote lines the rename had nothing to do with (`aliases: `
became `aliases:`, `tags: ` became `tags:`, an item's trailing space went), in the preview and on
disk. Only the tag's own line changes now, and no such note is read through the round trip."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

HUB = "---\naliases: \n- \ntags: \n- seedling \n- placeholder/notes\npublish: true\n---\n# Hub\n\nText.\n"
FILES = {
    "Hub.md": HUB,
    "Nested.md": "---\ntags:\n  - seedling/sprout\n  - other\n---\nBody #seedling here.\n",
    "Flow.md": "---\ntags: [seedling, other]\n---\nA flow list.\n",
    "Commented.md": "---\ntags:\n- seedling # the old one\n---\nA comment.\n",
    "Quoted.md": '---\ntags:\n- "seedling"\n---\nQuoted.\n',
    "Elsewhere.md": "---\ntags:\n- other\nstatus: seedling\n---\nOnly in another key.\n",
}


async def test_a_block_list_tag_is_renamed_on_its_own_line_without_a_round_trip(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.markdown import yaml_edit

    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        round_trips: list[str] = []
        edit = yaml_edit.edit_frontmatter

        def counted(text: str, rel: str, mutate: Any) -> str:
            round_trips.append(rel)
            return edit(text, rel, mutate)

        monkeypatch.setattr(yaml_edit, "edit_frontmatter", counted)
        preview = await vg.ok("rename_tag", old="seedling", new="status/seedling")
        hub = next(i for i in preview["items"] if i["path"] == "Hub.md")
        assert hub["changes"] == [{"line": 5, "before": "- seedling ", "after": "- status/seedling "}]
        done = await vg.confirmed("rename_tag", old="seedling", new="status/seedling", dry_run=False)
        assert done["files_changed"] == preview["files_changed"] == 5
        assert done["lines_changed"] == preview["lines_changed"]
        assert vg.read("Hub.md") == HUB.replace("- seedling ", "- status/seedling ")
        assert vg.read("Nested.md") == (
            "---\ntags:\n  - status/seedling/sprout\n  - other\n---\nBody #status/seedling here.\n"
        )
        assert vg.read("Elsewhere.md") == FILES["Elsewhere.md"]
        # the shapes a line edit does not cover still go through the round trip, renamed as before
        assert vg.read("Flow.md").startswith("---\ntags: [status/seedling, other]\n---\n")
        assert "status/seedling" in vg.read("Commented.md") and "# the old one" in vg.read("Commented.md")
        assert "status/seedling" in vg.read("Quoted.md")
        assert "Hub.md" not in round_trips and "Nested.md" not in round_trips
        assert {"Flow.md", "Commented.md", "Quoted.md"} <= set(round_trips)
        found = await vg.ok("search_tags", tags=["status/seedling"])
        assert found["total"] == 5
