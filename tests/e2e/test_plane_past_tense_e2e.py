"""The contradictions job end to end (real uvicorn, the SDK client, both eras): facts stated in
the past are history ("Worked at Acme" / "Worked at Globex"), and a past fact then a present one
a change ("Lived in Paris" / "Lives in Berlin"): neither is a contradiction; two present facts
still are."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok


def _note(name: str, old: str, new: str) -> str:
    return (
        f"---\nname: {name}\nentityType: person\n---\n# {name}\n\n## Observations\n"
        f"- {old} [date:: 2021-01-01] ^m-1\n- {new} [date:: 2023-01-01] ^m-2\n"
    )


VAULT = {
    "Memory/Ann.md": _note("Ann", "Worked at Acme", "Worked at Globex"),
    "Memory/Bo.md": _note("Bo", "Lived in Paris", "Lives in Berlin"),
    "Memory/Cy.md": _note("Cy", "Works at Acme", "Works for Globex"),
}


async def test_history_is_no_contradiction(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "run_consolidation", wait=True, jobs=["contradictions"])
            listed = await ok(c, "list_findings", kind="contradiction")
            found = [(f["detail"]["entity"], f["detail"]["older"], f["detail"]["newer"]) for f in listed["items"]]
            assert found == [("Cy", "Works at Acme", "Works for Globex")], found
