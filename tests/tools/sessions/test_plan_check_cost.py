"""A plan's check builds the vault's link-resolution set once, not once per move step.

Since the check plans the link rewrites of a move of a note an earlier step makes (f86ff91), each
such move built two sets of every vault path (before and after the move) from a fresh list of the
vault's files: validate_plan of 100 create-then-move pairs in a 3,000-note vault went from 0.64 s
to 3.27 s. Now the check's set is built once and each step changes it by the names it moves, made
and removed (`PathSet.changed`); the previews are the same."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.graph import linkpath
from tests.conftest import started

PAIRS = 12
NOTES = {f"Notes/n{i:03}.md": f"# N{i}\n\nSee [[n{(i * 7) % 200:03}]].\n" for i in range(200)}
NOTES["Home.md"] = "".join(f"[[New/F{i}]]\n" for i in range(0, PAIRS, 3))  # links the made notes answer


def _plan() -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    for i in range(PAIRS):
        steps.append({"id": f"c{i}", "tool": "create_note", "args": {"path": f"New/F{i}", "content": f"# F{i}\n"}})
        steps.append(
            {
                "id": f"m{i}",
                "tool": "move_note",
                "args": {"path": f"New/F{i}", "new_path": f"Archive/F{i}"},
                "dependsOn": [f"c{i}"],
            }
        )
    return {"goal": "file the new notes", "steps": steps}


async def test_a_plan_of_many_made_note_moves_builds_the_vaults_paths_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[int] = []
    init = linkpath.PathSet.__init__

    def counting(self: linkpath.PathSet, paths: Any, *, ordered: bool = False) -> None:
        paths = list(paths)
        if len(paths) > 100:  # a set of the whole vault's paths
            built.append(len(paths))
        init(self, paths, ordered=ordered)

    async with started(make_vault(NOTES)) as vg:
        await vg.indexed()
        monkeypatch.setattr(linkpath.PathSet, "__init__", counting)
        checked = await vg.ok("validate_plan", plan=_plan())
        assert checked["valid"], checked["problems"]
        moves = checked["effects"]["files_moved"]
        rewritten = {m["to"]: m["rewritten_in"] for m in moves}
        assert rewritten == {f"Archive/F{i}.md": ["Home.md"] if i % 3 == 0 else [] for i in range(PAIRS)}
        assert len(built) <= 1, built  # was two a move step (24)
        before = vg.snapshot()
        token = await vg.token_for("execute_plan", plan=_plan())
        run = await vg.ok("execute_plan", plan=_plan(), elicit_token=token)
        assert run["status"] == "done", run
        assert "Home.md" in vg.changed_since(before)
        assert vg.read("Home.md") == "".join(f"[[Archive/F{i}]]\n" for i in range(0, PAIRS, 3))
