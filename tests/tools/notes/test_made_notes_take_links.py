"""apply_template, create_periodic_note, append_to_periodic_note and process_capture (new_note)
say which links the note they make takes from another note of its name, as create_note does
(`links_now_here`, `service.graph.taken_links`): Obsidian resolves `[[Idea]]` to the closest of
the notes so named, and a new note rewrites no link. Before, these four made the note and said
nothing, though `[[Idea#Plan]]` had turned broken unseen (process_capture's answer had no such
field at all)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

OLD = "Projects/Notes/Idea.md"
OLD_DAY = "Archive/2026-11-24.md"
VAULT = {
    OLD: "# Idea\n\n## Plan\n",
    OLD_DAY: "an old copy\n",
    "Projects/Src.md": "intro\nsee [[Idea]] and [[Idea#Plan]] on [[2026-11-24]]\n",
    "Templates/T.md": "# {{title}}\n",
    ".obsidian/templates.json": json.dumps({"folder": "Templates"}),
    ".obsidian/daily-notes.json": json.dumps({"folder": "Days"}),
}
IDEA = [
    {"path": "Projects/Src.md", "line": 2, "target": "Idea", "was": OLD},
    {"path": "Projects/Src.md", "line": 2, "target": "Idea", "was": OLD},
]
DAY = [{"path": "Projects/Src.md", "line": 2, "target": "2026-11-24", "was": OLD_DAY}]


async def _capture_filed(vg: Harness) -> dict[str, Any]:
    made = await vg.ok("capture", text="an idea to file")
    return await vg.ok("process_capture", capture_id=made["id"], action="new_note", target="A/Idea")


CALLS: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = [
    ("apply_template", {"template": "T", "path": "A/Idea.md"}, IDEA),
    ("create_periodic_note", {"date": "2026-11-24"}, DAY),
    ("append_to_periodic_note", {"date": "2026-11-24", "content": "log"}, DAY),
    ("process_capture", {}, IDEA),
]


@pytest.mark.parametrize(("tool", "args", "taken"), CALLS)
async def test_a_note_these_tools_make_says_which_links_it_takes(
    tool: str, args: dict[str, Any], taken: list[dict[str, Any]], make_vault: Callable[..., Path]
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        out = await _capture_filed(vg) if tool == "process_capture" else await vg.ok(tool, **args)
        listed = sorted(out["links_now_here"] or [], key=lambda t: (t["path"], t["line"], t["target"]))
        assert (listed, out["links_now_here_count"]) == (taken, len(taken)), out
        if tool.endswith("periodic_note"):  # called again on the note there now: it takes nothing more
            await vg.settled()
            again = await vg.ok(tool, **args)
            assert (again["created"], again["links_now_here"], again["links_now_here_count"]) == (False, None, None)
