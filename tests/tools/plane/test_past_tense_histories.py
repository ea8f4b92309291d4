"""Facts stated in the past are history, no contradiction: "Worked at Acme" then "Worked at
Globex", "Lived in Paris" then "Lived in Berlin" are both true; "Worked at Acme" then "Works at
Globex" is a change, not a contradiction of the present. The contradictions job reported each as
one and its plan superseded the older (search_memory then ranks it after current facts, and
`auto_apply = ["contradiction"]` did that unasked: U10 s76 #7; tests/bench/bench_consolidation.py's
`past_tense_histories`, precision 0.28 before). Two present facts still contradict each other,
a present perfect ("Has lived in Paris since 2010") states the present, and a past fact between
two present ones leaves them a contradiction."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

HISTORY = [
    ("Worked at Acme", "Worked at Globex"),
    ("Lived in Paris", "Lived in Berlin"),
    ("Was based in Oslo", "Was based in Rome"),
    ("Worked as a nurse", "Worked as a teacher"),
    ("Was employed by Hooli", "Worked for Initech"),
    ("Budget was 5000", "Budget was 7000"),
    ("Was working at Acme", "Was working at Globex"),  # the past verb before the match (R7 s77)
    ("Her role was nurse", "Her role was teacher"),
]
POSSESSIVE = ("Ann's role was nurse", "Ann's role was teacher")  # 's of a name, not "has" (R7 s77)
CHANGES = [
    ("Worked at Acme", "Works at Globex"),
    ("Lived in Paris", "Lives in Berlin"),
    ("Role was nurse", "Role is teacher"),
]
PRESENT = [
    ("Works at Acme", "Works at Globex"),
    ("She's worked at Acme since 2010", "Works at Globex"),
    ("Has lived in Paris since 2010", "Moved to Berlin"),
    ("Budget is 5000", "Budget is 7000"),
]


async def _entity(vg: Harness, name: str, texts: list[str]) -> None:
    await vg.ok("create_entities", entities=[{"name": name, "entityType": "person", "observations": []}])
    for n, text in enumerate(texts):
        batch: list[dict[str, Any]] = [{"entityName": name, "contents": [text], "date": f"202{n}-01-01"}]
        await vg.ok("add_observations", observations=batch)


async def _contradictions(vg: Harness) -> set[tuple[str, str, str]]:
    await vg.ok("run_consolidation", wait=True, jobs=["contradictions"])
    found = (await vg.ok("list_findings", kind="contradiction", limit=100))["items"]
    return {(f["detail"]["entity"], f["detail"]["older"], f["detail"]["newer"]) for f in found}


async def test_history_and_changes_are_no_contradiction(vg: Harness) -> None:
    pairs = [*HISTORY, POSSESSIVE, *CHANGES, *PRESENT]
    for i, (old, new) in enumerate(pairs):
        await _entity(vg, f"P{i}", [old, new])
    wanted = {(f"P{i}", old, new) for i, (old, new) in enumerate(pairs) if (old, new) in PRESENT}
    assert await _contradictions(vg) == wanted


async def test_a_past_fact_between_two_present_ones_leaves_them_a_contradiction(vg: Harness) -> None:
    await _entity(vg, "Ann", ["Works at Acme", "Worked at Initech", "Works at Globex"])
    assert await _contradictions(vg) == {("Ann", "Works at Acme", "Works at Globex")}


def _note(name: str, old: str, new: str) -> str:
    return (
        f"---\nname: {name}\nentityType: person\n---\n# {name}\n\n## Observations\n"
        f"- {old} [date:: 2021-01-01] ^m-1\n- {new} [date:: 2023-01-01] ^m-2\n"
    )


async def test_auto_apply_leaves_history_as_it_is(make_vault: Callable[..., Path]) -> None:
    """With contradictions applied unasked, a history stays as written; a present one is applied."""
    vault = {
        "Memory/Bo.md": _note("Bo", "Worked at Acme", "Worked at Globex"),
        "Memory/Cy.md": _note("Cy", "Worked at Acme", "Works at Globex"),
        "Memory/Di.md": _note("Di", "Works at Acme", "Works at Globex"),
    }
    async with started(make_vault(vault), plane={"auto_apply": ["contradiction"]}) as vg:
        await vg.indexed()
        out = await vg.ok("run_consolidation", wait=True, jobs=["contradictions"])
        assert len(out["auto_applied"]) == 1, out
        assert vg.read("Memory/Bo.md") == vault["Memory/Bo.md"]
        assert vg.read("Memory/Cy.md") == vault["Memory/Cy.md"]
        assert "superseded_by" in vg.read("Memory/Di.md")
