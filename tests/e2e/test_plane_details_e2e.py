"""The contradictions job end to end (real uvicorn, the SDK client, both eras): a claim stated
again with a detail added ("Works at Acme" then "Works at Acme as a nurse") is no contradiction,
another employer still is; of two near duplicates, the one that adds a detail is kept."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

VAULT = {
    "Memory/Ann.md": "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n"
    "- Works at Acme [date:: 2021-01-01] ^m-1\n- Works at Acme as a nurse [date:: 2023-01-01] ^m-2\n"
    "- Lives in Paris [date:: 2021-01-01] ^m-3\n- Lives in Paris with Bo [date:: 2023-01-01] ^m-4\n",
    "Memory/Cy.md": "---\nname: Cy\nentityType: person\n---\n# Cy\n\n## Observations\n"
    "- Works at Acme [date:: 2021-01-01] ^m-5\n- Works for Globex [date:: 2023-01-01] ^m-6\n",
    "Memory/Di.md": "---\nname: Di\nentityType: person\n---\n# Di\n\n## Observations\n"
    "- Works at Hooli as a nurse [date:: 2021-01-01] ^m-7\n- Works at Hooli [date:: 2023-01-01] ^m-8\n",
}


async def test_a_detail_added_is_no_contradiction(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "run_consolidation", wait=True, jobs=["contradictions"])
            listed = await ok(c, "list_findings", kind="contradiction")
            found = [(f["detail"]["entity"], f["detail"]["older"], f["detail"]["newer"]) for f in listed["items"]]
            assert found == [("Cy", "Works at Acme", "Works for Globex")], found
            await ok(c, "run_consolidation", wait=True, jobs=["duplicates"])
            near = (await ok(c, "list_findings", kind="near_duplicate"))["items"]
            pairs = [(f["detail"]["entity"], f["detail"]["kept"], f["detail"]["duplicate"]) for f in near]
            assert ("Di", "Works at Hooli as a nurse", "Works at Hooli") in pairs, pairs  # the detail kept
            assert all(f["detail"]["duplicate"] != "Works at Hooli as a nurse" for f in near), pairs
