"""apply_finding through the dispatch chain: one finding's plan runs once however many calls apply
it at the same time (the others get `conflict`), and a plan run that does not complete is an error
that leaves the finding open (T1 items 14 and 12)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

ANN = (
    "---\nname: Ann\nentityType: person\naliases: []\n---\n# Ann\n\n## Observations\n"
    "- Likes green tea in the morning ^m-00000001\n- likes green tea in the morning. ^m-00000002\n"
)


async def test_concurrent_calls_apply_one_finding_once(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Ann.md": ANN, "Home.md": "# Home\n"})) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        [dup] = (await vg.ok("list_findings", kind="duplicate"))["items"]
        results = await asyncio.gather(*(vg.call("apply_finding", finding_id=dup["id"]) for _ in range(6)))
        applied = [r for r in results if not r.is_error]
        assert len(applied) == 1, [r.structured for r in results]
        refused = [r.structured["error"]["code"] for r in results if r.is_error]  # type: ignore[index]
        assert refused == ["conflict"] * 5
        [after] = (await vg.ok("list_findings", status="applied"))["items"]
        assert after["id"] == dup["id"]


async def test_a_plan_run_that_fails_is_an_error_and_the_finding_stays_open(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n[[A]]\n", "A.md": "# A\n[[Home]]\n"})) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["digest"])
        [digest] = (await vg.ok("list_findings", kind="digest"))["items"]
        path = digest["plan"]["steps"][0]["args"]["path"]
        await vg.ok("write_note", path=path, content="# Someone else's note\n")  # the plan's create_note would fail
        failed = await vg.err("apply_finding", "conflict", finding_id=digest["id"])  # refused before it runs
        assert failed["details"]["run_status"] is None
        assert [p["code"] for p in failed["details"]["problems"]] == ["already_exists"]
        assert vg.read(path) == "# Someone else's note\n"
        [still] = (await vg.ok("list_findings", kind="digest"))["items"]
        assert still["id"] == digest["id"] and still["status"] == "open"


async def test_a_later_digest_of_the_day_is_kept_beside_the_first(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n[[A]]\n", "A.md": "# A\n[[Home]]\n"})) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["digest"])
        [first] = (await vg.ok("list_findings", kind="digest"))["items"]
        first_path = first["plan"]["steps"][0]["args"]["path"]
        assert (await vg.ok("apply_finding", finding_id=first["id"]))["run"]["status"] == "done"
        await asyncio.sleep(1.1)  # mtimes after the first run's cursor
        await vg.ok("write_note", path="Afternoon.md", content="# Afternoon\n\nA decision about the budget. [[Home]]\n")
        await vg.settled()
        await vg.ok("run_consolidation", wait=True, jobs=["digest"])
        [later] = (await vg.ok("list_findings", kind="digest"))["items"]
        later_path = later["plan"]["steps"][0]["args"]["path"]
        assert later["id"] != first["id"] and later_path != first_path
        assert "[[Afternoon|" in later["detail"]["text"] and "[[Digests/" not in later["detail"]["text"]
        assert (await vg.ok("apply_finding", finding_id=later["id"]))["status"] == "applied"
        assert "Afternoon" in vg.read(later_path) and vg.read(first_path).startswith("# Digest")
        applied = (await vg.ok("list_findings", kind="digest", status="applied"))["items"]
        assert {f["id"] for f in applied} == {first["id"], later["id"]}
