"""A plan run is its starter's with its grant, through the chain: get_plan_run and cancel_plan of
another token of the same subject (read-only, or a write scope narrowed to a folder) answer
not_found, as for another caller (s61 T2 #3/#8); the starter's own grant still reaches it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.types import Principal
from tests.conftest import started

PLAN = {"goal": "one note", "steps": [{"id": "a", "tool": "create_note", "args": {"path": "T/A", "content": "a"}}]}
WRITER = Principal("agent", frozenset({"read:vault", "write:vault"}), authenticated=True)


async def test_another_grant_of_the_same_subject_neither_reads_nor_cancels_the_run(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Welcome.md": "# Welcome\n"})) as vg:
        vg.principal = WRITER
        run = await vg.ok("execute_plan", plan=PLAN)
        assert run["status"] == "done"
        for scopes in ({"read:vault"}, {"read:vault", "write:vault/N/**"}):
            vg.principal = Principal("agent", frozenset(scopes), authenticated=True)
            await vg.err("get_plan_run", "not_found", run_id=run["run_id"])
            if "write:vault/N/**" in scopes:
                await vg.err("cancel_plan", "not_found", run_id=run["run_id"])
        vg.principal = WRITER
        again = await vg.ok("get_plan_run", run_id=run["run_id"])
        assert again["status"] == "done"
        assert (await vg.ok("cancel_plan", run_id=run["run_id"]))["cancelling"] is False
