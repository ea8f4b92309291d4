"""Over HTTP with the SDK client, both eras: a confirmed move whose vault changed after its
confirmation, so that it would now rewrite a note the human was not shown, answers `conflict`
with what it would change now and changes nothing; asked again, the confirmation lists that note
(dispatch-chain tests: tests/tools/notes/test_move_confirmed_plan.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.tools.notes.test_move_confirmed_plan import VAULT, _meanwhile


async def test_a_move_changing_files_not_shown_is_a_conflict_over_http(
    make_vault: Callable[..., Path], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        args = {"path": "Hub/Target.md", "new_path": "Archive/Target.md"}
        token = await h.token_for("move_note", **args)
        _meanwhile(h, monkeypatch, "Late.md", "[[Hub/Target]]\n")  # written after the token call's preview
        before = snapshot(h.root)
        refused = await error(c, "move_note", **args, elicit_token=token)
        assert refused["code"] == "conflict" and refused["details"]["added"] == ["Late.md"]
        after = snapshot(h.root)
        assert {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)} == {"Late.md"}
        monkeypatch.undo()
        asked = await error(c, "move_note", **args)
        assert asked["code"] == "elicit_required" and "Late.md" in asked["details"]["files"]
        moved = await ok(c, "move_note", **args, elicit_token=await h.token_for("move_note", **args))
        assert moved["notes_rewritten"] == 3 and h.read("Late.md") == "[[Archive/Target]]\n"
