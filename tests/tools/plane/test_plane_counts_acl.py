"""What a caller whose path rules deny the memory folder is told of the consolidation plane: every
count — run_consolidation's per job and new / again / gone, plane_status's per job and by kind,
list_findings' total and pages — is counted over the findings it may see, so the memory's
duplicates and contradictions are never counted for it (issue 37: "learns nothing of it through
any tool, search, graph or count")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started
from tests.tools.plane.test_plane import PLANTED, entity

DENY_MEMORY = {"prefix_rules": [{"path": "Memory", "read": "deny", "write": "deny"}]}
MEMORY_JOBS = ("duplicates", "contradictions")


async def everything(vg: Harness, **args: Any) -> list[dict[str, Any]]:
    return (await vg.ok("list_findings", limit=500, status=None, **args))["items"]


async def test_a_caller_denied_the_memory_folder_is_told_no_count_of_its_findings(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({**PLANTED, "Memory/Cara.md": entity("Cara", "Lives in Paris", "Lives in Rome")})
    async with started(root) as vg:  # no path rule: the memory's findings are counted
        await vg.indexed()
        first = await vg.ok("run_consolidation", wait=True)
        reported = {j["job"]: j["findings"] for j in first["jobs"]}
        assert all(reported[job] >= 1 for job in MEMORY_JOBS), reported
        told = await vg.ok("plane_status")
        status = {j["job"]: j["last_findings"] for j in told["jobs"]}
        assert all(status[job] == reported[job] for job in MEMORY_JOBS)
        assert told["last_counts"] == {k: first[k] for k in ("new", "again", "gone")}, told
    # Between the runs the exact duplicate goes from the memory and the misspelt link is mended.
    ann = PLANTED["Memory/Ann.md"].replace("- likes green tea in the morning.", "- [fixed] nothing")
    (root / "Memory/Ann.md").write_text(ann, encoding="utf-8")
    (root / "Projects/Alpha.md").write_text(PLANTED["Projects/Alpha.md"].replace("Projetcs", "Projects"))

    async with started(root, acl=DENY_MEMORY) as vg:
        await vg.indexed()
        assert (await vg.call("read_memory_graph")).is_error  # the rule applies
        out = await vg.ok("run_consolidation", wait=True)
        seen = await everything(vg)
        assert seen and not [f for f in seen if any(p.startswith("Memory/") for p in f["paths"])]
        found = Counter(f["job"] for f in seen if f["status"] == "open")
        gone = [f for f in seen if f["status"] == "gone"]
        assert [f["kind"] for f in gone] == ["broken_link"]  # the memory's gone duplicate is not told

        per_job = {j["job"]: j["findings"] for j in out["jobs"]}
        assert per_job == {j["job"]: found.get(j["job"], 0) for j in out["jobs"]}
        assert all(per_job[job] == 0 for job in MEMORY_JOBS)
        assert out["new"] + out["again"] == sum(found.values()) and out["gone"] == len(gone) == 1

        status = await vg.ok("plane_status")
        assert status["last_counts"] is None  # the run's counts are over every finding: not told
        last = {j["job"]: j["last_findings"] for j in status["jobs"]}
        assert all(last[job] == 0 for job in MEMORY_JOBS), last
        assert {job: n for job, n in last.items() if n} == dict(found)
        by_kind: dict[str, dict[str, int]] = {}
        for f in seen:
            by_kind.setdefault(f["kind"], {}).setdefault(f["status"], 0)
            by_kind[f["kind"]][f["status"]] += 1
        assert status["findings"] == by_kind

        # Pages are cut after the findings it may not see are left out, and the total is theirs.
        pages, cursor = [], None
        while True:
            page = await vg.ok("list_findings", limit=1, **({"cursor": cursor} if cursor else {}))
            pages.append(page)
            cursor = page["next_cursor"]
            if cursor is None:
                break
        open_ids = [f["id"] for f in seen if f["status"] == "open"]
        assert [len(p["items"]) for p in pages] == [1] * len(open_ids)
        assert [p["items"][0]["id"] for p in pages] == open_ids
        assert {p["total"] for p in pages} == {len(open_ids)}
