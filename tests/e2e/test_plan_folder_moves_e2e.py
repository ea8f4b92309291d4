"""A plan that renames a folder, then overwrites a note the rename moved, over HTTP with the
SDK client: the plan asks a human once, up front, naming the overwrite as a change of that note,
and nothing moves before the answer; confirmed, it runs to the end. Before, the check took the
folder for a note, previewed the overwrite as a create and did not ask: the run renamed the
folder, then stopped at the overwrite's own `elicit_required`, half done."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

VAULT = {"Hub.md": "# Hub\n\n- [[Proj/A]]\n", "Proj/A.md": "# A\n\nprecious text\n", "Proj/B.md": "# B\n"}
PLAN = {
    "goal": "rename the folder, then rewrite A",
    "steps": [
        {"id": "mv", "tool": "rename_note", "args": {"path": "Proj", "new_path": "Projects"}},
        {
            "id": "ow",
            "tool": "write_note",
            "args": {"path": "Projects/A", "mode": "overwrite", "content": "new\n"},
            "dependsOn": ["mv"],
        },
    ],
}


async def test_an_overwrite_after_a_folder_rename_is_asked_up_front(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            checked = await ok(c, "validate_plan", plan=PLAN)
            effects = checked["effects"]
            assert effects["files_modified"] == ["Projects/A.md"] and effects["files_created"] == []
            asked = await error(c, "execute_plan", plan=PLAN)
            assert asked["code"] == "elicit_required" and "modify (1): Projects/A.md" in asked["details"]["preview"]
            assert h.read("Proj/A.md") == "# A\n\nprecious text\n" and not (h.root / "Projects").exists()
            token = await h.token_for("execute_plan", plan=PLAN)
            run = await ok(c, "execute_plan", plan=PLAN, elicit_token=token)
            assert run["status"] == "done", run
            assert h.read("Projects/A.md") == "new\n" and h.read("Hub.md") == "# Hub\n\n- [[Projects/A]]\n"
