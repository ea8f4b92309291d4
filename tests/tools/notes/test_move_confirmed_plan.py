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
    another program's write seen while a human is asked would be) makes the move plan again. A
    note that does not link to the moved one leaves the files it changes as shown: it moves."""
    write_files(tmp_path, VAULT)
    made = _counting(monkeypatch)
    async with started(tmp_path) as vg:
        await vg.indexed()
        args = {"path": "Hub/Target.md", "new_path": "Archive/Target.md"}
        token = await vg.token_for("move_note", **args)
        _meanwhile(vg, monkeypatch, "Unrelated.md", "no link\n")
        made.clear()
        out = await vg.ok("move_note", **args, elicit_token=token)
        assert made == [True, False]  # planned again: the vault changed since the confirmation's plan
        assert out["notes_rewritten"] == 2 and vg.read("Notes/a.md").startswith("[[Archive/Target]]")


async def test_a_move_that_would_change_other_files_than_approved_is_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note linking to the moved one written between the confirmation's plan and the move: the
    plan made again rewrites it too, a file the human did not approve. The move applied it (M8
    s74 left it); now it answers `conflict` with what it would change now, changes nothing, and
    a new confirmation lists that note."""
    write_files(tmp_path, VAULT)
    async with started(tmp_path) as vg:
        await vg.indexed()
        args = {"path": "Hub/Target.md", "new_path": "Archive/Target.md"}
        token = await vg.token_for("move_note", **args)
        _meanwhile(vg, monkeypatch, "Late.md", "[[Hub/Target]]\n")
        before = snapshot(tmp_path)
        error = await vg.err("move_note", "conflict", **args, elicit_token=token)
        assert error["details"]["reason"] == "changed_since_confirmation"
        assert error["details"]["added"] == ["Late.md"] and error["details"]["dropped"] == []
        assert "- Late.md" in error["details"]["preview"] and error["details"]["files_changed"] == 5
        after = snapshot(tmp_path)
        assert {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)} == {"Late.md"}
        monkeypatch.undo()
        asked = await vg.err("move_note", "elicit_required", **args)
        assert "Late.md" in asked["details"]["files"]
        out = await vg.confirmed("move_note", **args)
        assert out["notes_rewritten"] == 3 and vg.read("Late.md") == "[[Archive/Target]]\n"


def _meanwhile(vg: Harness, monkeypatch: pytest.MonkeyPatch, path: str, text: str) -> None:
    """Write `path` (as another program would, seen by the watcher) right after the next
    confirmation's plan of a move, once."""
    real = moves._plan
    armed = [True]

    async def meanwhile(*args: Any, **kwargs: Any) -> Any:
        planned = await real(*args, **kwargs)
        if kwargs.get("confirming") and armed and armed.pop():
            (vg.root / path).write_text(text)
            await vg.indexer().apply([FileChange("created", path, origin="external")], only_if_changed=True)
        return planned

    monkeypatch.setattr(moves, "_plan", meanwhile)
