"""Of two near duplicates one of which says all the other says and more, the plan deletes the
shorter: "Works at Acme as a nurse" (2021) and "Works at Acme" (2023) planned the deletion of the
first (the one dated earlier goes), losing "as a nurse"; now "Works at Acme" goes, whatever the
order or the dates. A pair where neither holds all the other's words keeps the old rule."""

from __future__ import annotations

from typing import Any

from tests.conftest import Harness


async def _entity(vg: Harness, name: str, texts: list[str]) -> None:
    await vg.ok("create_entities", entities=[{"name": name, "entityType": "person", "observations": []}])
    for n, text in enumerate(texts):
        batch: list[dict[str, Any]] = [{"entityName": name, "contents": [text], "date": f"202{n + 1}-01-01"}]
        await vg.ok("add_observations", observations=batch)


async def test_the_shorter_of_two_near_duplicates_goes(vg: Harness) -> None:
    await _entity(vg, "Ann", ["Works at Acme as a nurse", "Works at Acme"])
    await _entity(vg, "Bo", ["Works at Acme", "Works at Acme as a nurse"])
    await _entity(vg, "Cy", ["Likes hiking in the hills", "Likes hiking in the green hills"])
    await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
    found = (await vg.ok("list_findings", kind="near_duplicate", limit=100))["items"]
    pairs = {f["detail"]["entity"]: (f["detail"]["kept"], f["detail"]["duplicate"]) for f in found}
    assert pairs == {
        "Ann": ("Works at Acme as a nurse", "Works at Acme"),
        "Bo": ("Works at Acme as a nurse", "Works at Acme"),
        "Cy": ("Likes hiking in the green hills", "Likes hiking in the hills"),
    }
    ann = next(f for f in found if f["detail"]["entity"] == "Ann")
    step = ann["plan"]["steps"][0]["args"]["deletions"][0]
    assert step["observations"] == [f"^{ann['detail']['duplicate_block_id']}"]
