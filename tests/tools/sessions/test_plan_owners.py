"""Whose run undo_last_plan reverses: by default the caller's own newest run, never another's.

Two agents write in one vault. Without `run_id` each undoes only their own last run; naming
another caller's run needs the `admin` scope (without it the run is `not_found`, as if absent).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.types import Principal
from tests.conftest import Harness, started

WRITER = frozenset({"read:vault", "write:vault", "delete:vault"})


def _plan(path: str) -> dict[str, Any]:
    return {"goal": f"make {path}", "steps": [{"id": "a", "tool": "create_note", "args": {"path": path}}]}


async def _as(vg: Harness, principal: Principal, tool: str, **args: Any) -> dict[str, Any]:
    result = await vg.app.dispatcher.call(tool, args, principal=principal)
    assert result.structured is not None
    return result.structured


async def _confirmed_as(vg: Harness, principal: Principal, tool: str, **args: Any) -> dict[str, Any]:
    first = await _as(vg, principal, tool, **args)
    assert first.get("error", {}).get("code") == "elicit_required", first
    store = vg.app.services.confirmations
    [request] = await store.pending(first["error"]["details"]["args_hash"], first["error"]["details"]["vault"])
    token, _ = await store.mint(request, minted_by="test")
    return await _as(vg, principal, tool, **args, elicit_token=str(token))


@pytest.mark.covers("undo_last_plan", "success")
@pytest.mark.covers("undo_last_plan", "failure")
async def test_undo_defaults_to_the_callers_own_run(make_vault: Callable[..., Path]) -> None:
    alice = Principal("alice", WRITER)
    bob = Principal("bob", WRITER)
    admin = Principal("root", frozenset({*WRITER, "admin"}))
    async with started(make_vault()) as vg:
        mine = await _as(vg, alice, "execute_plan", plan=_plan("Alice"))
        theirs = await _as(vg, bob, "execute_plan", plan=_plan("Bob"))  # newer than alice's
        assert mine["status"] == theirs["status"] == "done"
        dry = await _as(vg, alice, "undo_last_plan", dry_run=True)
        assert dry["run_id"] == mine["run_id"] and dry["restored"] == ["Alice.md"]
        refused = await _as(vg, alice, "undo_last_plan", run_id=theirs["run_id"], dry_run=True)
        assert refused["error"]["code"] == "not_found"
        undone = await _confirmed_as(vg, alice, "undo_last_plan")
        assert undone["run_id"] == mine["run_id"]
        assert not (vg.root / "Alice.md").exists() and (vg.root / "Bob.md").is_file()
        # alice's undo is now her newest run; bob's run is still not hers to pick
        assert (await _as(vg, alice, "undo_last_plan", dry_run=True))["run_id"] == undone["undo_run_id"]
        nothing = await _as(vg, Principal("carol", WRITER), "undo_last_plan", dry_run=True)
        assert nothing["error"]["code"] == "not_found"
        by_admin = await _confirmed_as(vg, admin, "undo_last_plan", run_id=theirs["run_id"])
        assert by_admin["run_id"] == theirs["run_id"] and not (vg.root / "Bob.md").exists()
