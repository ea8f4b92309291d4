"""Shared data for the action plan tests: a 60-note vault and a plan that reorganises it.

`big_plan()` creates 10 notes, appends to and tags every note of `Notes/` (found by a list_notes
step, foreach over `$steps.find.items[*].path`), moves 5 notes that `Hub.md` and the others link
to (their links are rewritten), patches the hub and deletes 5: 1 + 10 + 60 + 1 + 60 + 5 + 5 calls.
"""

from __future__ import annotations

from typing import Any

NOTES = 60


def plan_files(n: int = NOTES) -> dict[str, str]:
    files = {f"Notes/n{i:02}.md": f"# Note {i}\n\nSee [[Move/m{i % 5}]] and [[Hub]].\n" for i in range(n)}
    files.update({f"Move/m{i}.md": f"# M{i}\n\nback to [[Hub]]\n" for i in range(5)})
    files.update({f"Old/o{i}.md": f"# Old {i}\n" for i in range(5)})
    files["Hub.md"] = "# Hub\n\n" + "".join(f"- [[Move/m{i}]]\n" for i in range(5))
    return files


def big_plan() -> dict[str, Any]:
    return {
        "goal": "reorganise the vault",
        "assumptions": ["Notes/ holds the notes to tag"],
        "params": [{"name": "tag", "type": "string", "default": "reviewed", "description": "Tag to add."}],
        "steps": [
            {"id": "find", "tool": "list_notes", "args": {"folder": "Notes", "limit": 500}},
            {
                "id": "create",
                "tool": "create_note",
                "foreach": [f"New/c{i}" for i in range(10)],
                "args": {"path": "$item", "content": "# Created ${item}\n"},
            },
            {
                "id": "patch",
                "tool": "append_note",
                "foreach": "$steps.find.items[*].path",
                "as": "note",
                "args": {"path": "$note", "content": "appended to ${note}"},
            },
            {
                "id": "hub",
                "tool": "patch_note",
                "args": {"path": "Hub", "heading": ["Hub"], "content": "patched under the heading\n"},
            },
            {
                "id": "tag",
                "tool": "add_tags",
                "dependsOn": ["patch"],
                "foreach": "$steps.find.items[*].path",
                "args": {"path": "$item", "tags": ["${tag}"]},
            },
            {
                "id": "move",
                "tool": "move_note",
                "foreach": [0, 1, 2, 3, 4],
                "args": {"path": "Move/m${item}.md", "new_path": "Archive/m${item}.md"},
            },
            {
                "id": "delete",
                "tool": "delete_note",
                "foreach": [f"Old/o{i}.md" for i in range(5)],
                "args": {"path": "$item"},
            },
        ],
    }
