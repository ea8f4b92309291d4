"""apply_finding's refusals say what to do, end to end: a real uvicorn server with JWT identities
and the SDK client over HTTP, both protocol eras (tests/tools/plane/test_findings_without_plan_say_why.py
through the dispatch chain). Found by U10 (s94): a duplicate of two hand-written lines answered
"no plan" with a hint to check the input schema; an agent limited to a folder, given a finding
about memory, was told to check the path with list_notes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.e2e.test_shared_memory_agents_e2e import AUTH, agent
from tests.tools.plane.test_findings_without_plan_say_why import HAND


async def test_a_finding_without_a_plan_and_a_hidden_one_say_what_to_do(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault({**HAND, "Projects/A.md": "# A\n"})
    narrowed = "read:vault/Projects/** write:vault/Projects/**"
    async with (
        e2e(root, auth=AUTH) as (url, h),
        agent(url, "alice", mode, scope="read:vault write:vault admin") as alice,
        agent(url, "carol", mode, scope=narrowed) as carol,
    ):
        await h.indexed()
        await ok(alice, "run_consolidation", jobs=["duplicates"], wait=True)
        [dup] = (await ok(alice, "list_findings", kind="duplicate"))["items"]
        refused = await error(alice, "apply_finding", finding_id=dup["id"])
        assert refused["code"] == "validation_error" and "block id" in refused["hint"], refused
        assert (await ok(carol, "list_findings"))["items"] == []
        hidden = await error(carol, "apply_finding", finding_id=dup["id"])
        assert hidden["code"] == "note_not_found" and "list_findings" in hidden["hint"], hidden
        assert "Memory" not in str(hidden) and "Cara" not in str(hidden)
