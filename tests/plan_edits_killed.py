"""`python -m tests.plan_edits_killed VAULT MARKER [in-write REL]`: tests/plan_killed.py's dying
process with a plan whose edits add links to the note it then renames — a patch of the hub, a
property set on `Old/o0`, a find and replace over `Move/` — held halfway through the rename's
commit and killed there (SIGKILL), or, with `in-write`, killed in the write of REL once the
journal recorded its prior bytes (tests/tools/sessions/test_plan_edits_killed.py).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from tests.plan_killed import kill_when_writing, main

PLAN: dict[str, Any] = {
    "goal": "link the first moved note from everywhere, then rename it",
    "steps": [
        {"id": "hub", "tool": "patch_note", "args": {"path": "Hub#Hub", "content": "first: [[Move/m0]]"}},
        {"id": "up", "tool": "set_properties", "args": {"path": "Old/o0", "properties": {"up": "[[Move/m0]]"}}},
        {
            "id": "swap",
            "tool": "replace_text",
            "args": {"folder": "Move", "find": "back to", "replace": "see [[Move/m0]], back to", "dry_run": False},
        },
        {"id": "rename", "tool": "rename_note", "args": {"path": "Move/m0.md", "new_path": "m0 renamed"}},
        {"id": "after", "tool": "create_note", "args": {"path": "K/never"}},
    ],
}

if __name__ == "__main__":
    in_write = sys.argv[3:4] == ["in-write"]
    if in_write:
        kill_when_writing(sys.argv[4])
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), 1 if in_write else 4, PLAN))
