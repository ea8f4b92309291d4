"""A contradiction's older observation is the one whose fact is older, by the date its text gives
when it has no `date` field. An undated "Moved to Oslo in March 2016" sorted before every dated
observation (its date was ''), and one recorded later than "Lives in Paris" came after it, though
it says when it happened: beside "Lives in Paris" dated 2015 the plan marked the 2016 move
superseded by Paris "valid until 2015-01-01", and beside a "Lives in Paris" noted first it marked
Paris (the present) superseded by a move of 2016. Found checking B3 s78's note on `moved` (B5 s79).
Now the order reads `date`, else the date the text gives, else `recorded` (`fact_date`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, started


def _note(name: str, lines: list[str]) -> str:
    body = "\n".join(f"- {text} ^m-{i:06d}" for i, text in enumerate(lines))
    return f"---\nname: {name}\nentityType: person\n---\n# {name}\n\n## Observations\n{body}\n"


VAULT = {
    "Memory/Ann.md": _note("Ann", ["Lives in Paris [date:: 2015-01-01]", "Moved to Oslo in March 2016"]),
    "Memory/Bob.md": _note(
        "Bob", ["Lives in Paris [recorded:: 2024-05-01]", "Moved to Oslo in March 2016 [recorded:: 2024-06-01]"]
    ),
}


async def _found(vg: Harness) -> dict[str, dict[str, object]]:
    await vg.ok("run_consolidation", wait=True, jobs=["contradictions"])
    items = (await vg.ok("list_findings", kind="contradiction"))["items"]
    return {str(f["detail"]["entity"]): f for f in items}


async def test_the_date_a_text_gives_orders_a_contradiction(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        found = await _found(vg)
        ann, bob = found["Ann"]["detail"], found["Bob"]["detail"]
        assert (ann["older"], ann["newer"]) == ("Lives in Paris", "Moved to Oslo in March 2016"), ann  # type: ignore[index]
        assert ann["newer_date"] == "2016-03", ann  # type: ignore[index]
        assert (bob["older"], bob["newer"]) == ("Moved to Oslo in March 2016", "Lives in Paris"), bob  # type: ignore[index]
        [step] = found["Ann"]["plan"]["steps"]  # type: ignore[index]
        assert step["args"]["observation"] == "^m-000000" and step["args"]["valid_until"] == "2016-03", step
        applied = await vg.ok("apply_finding", finding_id=found["Bob"]["id"])
        assert applied["run"]["status"] == "done", applied
        lines = vg.read("Memory/Bob.md").splitlines()
        assert "- Lives in Paris [recorded:: 2024-05-01] ^m-000000" in lines, lines  # the present stays
        moved = "- Moved to Oslo in March 2016 [recorded:: 2024-06-01] [superseded_by:: ^m-000000]"
        assert f"{moved} [valid_until:: 2024-05-01] ^m-000001" in lines, lines
