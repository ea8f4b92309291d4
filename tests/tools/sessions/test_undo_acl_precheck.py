"""undo_last_plan by a folder-narrowed token of the same subject (s61 T2 #12): the path ACL is
checked before anyone is asked, and a path the caller may not read is never named — not in a
confirmation preview, not in the refusal. Through the dispatch chain and over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import e2e, started
from tests.keys import SECRET
from tests.sec_vault import SEC_VAULT, call_with_scope, caller

WRITER = "read:vault write:vault delete:vault"
NARROWED = "read:vault/Inbox/** write:vault/Inbox/** delete:vault/Inbox/**"
PLAN: dict[str, Any] = {
    "goal": "append",
    "steps": [{"id": "a", "tool": "append_note", "args": {"path": "Projects/Plan", "content": "planned line"}}],
}


async def test_a_narrowed_token_is_refused_before_anyone_is_asked(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEC_VAULT)) as vg:
        vg.principal = caller(WRITER)
        run = await vg.ok("execute_plan", plan=PLAN)
        after_run = vg.snapshot()
        vg.principal = caller(NARROWED)  # same subject, fewer rights
        for args in ({}, {"dry_run": True}, {"run_id": run["run_id"]}, {"skip_conflicts": True}):
            error = await vg.err("undo_last_plan", "acl_denied", **args)
            assert "Projects" not in json.dumps(error) and "Plan" not in error["message"]
        vg.principal = caller("read:vault write:vault/Inbox/** delete:vault")  # may read it, not write it
        error = await vg.err("undo_last_plan", "acl_denied")
        assert error["details"]["path"] == "Projects/Plan.md"
        assert vg.snapshot() == after_run
        vg.principal = caller(WRITER)  # its own writer still undoes it, after a human approves
        undone = await vg.confirmed("undo_last_plan")
        assert undone["run_id"] == run["run_id"] and undone["restored"] == ["Projects/Plan.md"]
        assert "planned line" not in vg.read("Projects/Plan.md")


async def test_a_writer_undoes_its_own_run_in_a_folder_it_may_write_but_not_read(
    make_vault: Callable[..., Path],
) -> None:
    """A drop folder (write allowed, read denied): the grant that wrote there knows the names it wrote,
    so its undo is not refused for want of read access (another grant's would be)."""
    drop = {"prefix_rules": [{"path": "Drop", "read": "deny", "write": "allow"}]}
    plan = {"goal": "drop", "steps": [{"id": "a", "tool": "create_note", "args": {"path": "Drop/x", "content": "hi"}}]}
    async with started(make_vault({**SEC_VAULT, "Drop/keep.md": "# keep\n"}), acl=drop) as vg:
        vg.principal = caller(WRITER)
        run = await vg.ok("execute_plan", plan=plan)
        assert (await vg.ok("undo_last_plan", dry_run=True))["run_id"] == run["run_id"]
        undone = await vg.confirmed("undo_last_plan")
        assert undone["run_id"] == run["run_id"] and not (vg.root / "Drop/x.md").exists()


async def test_over_http_the_narrowed_token_gets_acl_denied_not_a_question(make_vault: Callable[..., Path]) -> None:
    auth = {"mode": "jwt", "jwt_secret": SECRET, "audience": "vaultgate"}
    async with e2e(make_vault(SEC_VAULT), auth=auth) as (url, harness):

        async def call(scope: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
            return await call_with_scope(url, scope, tool, args)

        assert "run_id" in await call(WRITER, "execute_plan", {"plan": PLAN})
        before = harness.snapshot()
        refused = await call(NARROWED, "undo_last_plan", {})
        assert refused["error"]["code"] == "acl_denied", refused
        assert "Projects" not in json.dumps(refused)
        assert harness.snapshot() == before
