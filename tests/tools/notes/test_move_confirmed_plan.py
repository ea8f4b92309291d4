"""A confirmed move runs the plan its confirmation showed, planned once in the call
(`tools.notes.move_confirmed`), unless the vault changed in between: then it plans again.

A confirmed move_note planned the move twice in the call that carries the token: once for the
preview the confirmation compares with the token, once more in the handler, each reading and
rewriting every note whose links change (a folder's move: twice the reading of its notes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.tools.notes import moves
from service.vault.events import FileChange
from tests.conftest import Harness, snapshot, started, write_files

VAULT = {
    "Hub/Target.md": "# Target\n",
    "Hub/Other.md": "# Other\n\nSee [[Hub/Target]].\n",
    "Notes/a.md": "[[Hub/Target]] and [[Hub/Other|other]]\n",
    "Notes/b.md": "[b](../Hub/Other.md)\n",
}


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each plan the move tools make: True for a confirmation's."""
    made: list[bool] = []
    real = moves.plan_move

    async def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(kwargs.get("steps") is None)
        return await real(*args, **kwargs)

    monkeypatch.setattr(moves, "plan_move", counted)
    return made


async def _confirmed_once(vg: Harness, made: list[bool], **args: Any) -> dict[str, Any]:
    token = await vg.token_for("move_note", **args)
    made.clear()
    before = snapshot(vg.root)
    out = await vg.ok("move_note", **args, elicit_token=token)
    after = snapshot(vg.root)
    out["changed"] = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p) and not p.endswith("/")}
    return out


async def test_a_confirmed_move_runs_the_plan_its_confirmation_showed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(tmp_path, VAULT)
    made = _counting(monkeypatch)
    async with started(tmp_path) as vg:
        await vg.indexed()
        out = await _confirmed_once(vg, made, path="Hub", new_path="Archive/Hub")
        assert made == [True]  # the confirmation's plan, run as it was shown
        assert out["changed"] == {
            "Hub/Target.md",
            "Hub/Other.md",
            "Archive/Hub/Target.md",
            "Archive/Hub/Other.md",
            "Notes/a.md",
            "Notes/b.md",
        }
        assert vg.read("Notes/a.md") == "[[Archive/Hub/Target]] and [[Archive/Hub/Other|other]]\n"
        assert vg.read("Notes/b.md") == "[b](../Archive/Hub/Other.md)\n"
        assert vg.read("Archive/Hub/Other.md") == "# Other\n\nSee [[Archive/Hub/Target]].\n"


async def test_a_vault_changed_after_the_confirmation_is_planned_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note written between the confirmation's plan and the move (here inside the call, as
    another program's write seen while a human is asked would be) makes the move plan again: the
    new note's link is rewritten too."""
    write_files(tmp_path, VAULT)
    made = _counting(monkeypatch)
    real = moves._plan
    async with started(tmp_path) as vg:
        await vg.indexed()

        async def meanwhile(*args: Any, **kwargs: Any) -> Any:
            planned = await real(*args, **kwargs)
            if kwargs.get("confirming") and armed:
                (tmp_path / "Late.md").write_text("[[Hub/Target]]\n")  # another program's, seen by the watcher
                await vg.indexer().apply([FileChange("created", "Late.md", origin="external")], only_if_changed=True)
            return planned

        monkeypatch.setattr(moves, "_plan", meanwhile)
        armed = False
        token = await vg.token_for("move_note", path="Hub/Target.md", new_path="Archive/Target.md")
        made.clear()
        armed = True
        out = await vg.ok("move_note", path="Hub/Target.md", new_path="Archive/Target.md", elicit_token=token)
        assert made == [True, False]  # planned again: the vault changed since the confirmation's plan
        assert vg.read("Late.md") == "[[Archive/Target]]\n"
        assert out["notes_rewritten"] == 3
