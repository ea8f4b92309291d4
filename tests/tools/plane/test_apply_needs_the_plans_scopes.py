"""apply_finding by a caller whose token lacks a scope the finding's plan needs (a merge of two
entities deletes one: `delete:vault`) answered `conflict`, "the finding's plan cannot run on the
vault as it is now", with the hint to run the consolidation again, which can never help: the
token is what is missing. Now `forbidden` naming the step and the scope; nothing changed, the
finding open for an agent that has it. Found driving the plane with three tokens on a real server
(B2 s77). Through the dispatch chain (tests/e2e/test_apply_needs_scope_e2e.py: over HTTP)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import snapshot, started
from tests.sec_vault import caller

VAULT = {
    "Memory/Bob.md": "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n- Lives in Berlin ^m-a1\n",
    "Memory/Bobs.md": "---\nname: Bobs\nentityType: person\n---\n# Bobs\n\n## Observations\n- Has a dog ^m-b1\n",
}
WRITER = "read:vault write:vault"


async def test_a_token_without_the_plans_scope_is_forbidden_and_nothing_changes(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        [merge] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
        before = snapshot(vg.root)
        vg.principal = caller(WRITER)
        error = await vg.err("apply_finding", "forbidden", finding_id=merge["id"])
        assert "delete:vault" in error["message"] and error["details"]["problems"][0]["code"] == "forbidden", error
        assert snapshot(vg.root) == before
        [still] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
        assert still["id"] == merge["id"] and still["status"] == "open"
