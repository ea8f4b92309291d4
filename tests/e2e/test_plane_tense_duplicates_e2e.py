"""The duplicates job end to end (real uvicorn, the SDK client, both eras): a fact stated as history
and the same fact now ("Worked at Acme" / "Works at Acme") are not near duplicates, so neither line
is planned away; two lines in one tense, one adding a detail, still are."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok


def _note(name: str, old: str, new: str) -> str:
    return f"---\nname: {name}\nentityType: person\n---\n# {name}\n\n## Observations\n- {old} ^m-1\n- {new} ^m-2\n"


VAULT = {
    "Memory/Ann.md": _note("Ann", "Worked at Acme", "Works at Acme"),
    "Memory/Bo.md": _note("Bo", "Lives in Paris", "Lived in Paris"),
    "Memory/Cy.md": _note("Cy", "Works at the bakery", "Works at the bakery on weekends"),
}


async def test_history_and_now_are_no_duplicates(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "run_consolidation", wait=True, jobs=["duplicates"])
            listed = await ok(c, "list_findings", limit=50)
            found = [(f["detail"]["entity"], f["detail"]["duplicate"]) for f in listed["items"]]
            assert found == [("Cy", "Works at the bakery")], found
