"""A finding whose apply a killed process left `applying` is open again at the next start, naming
the plan run that apply left interrupted; while a call applies one, list_findings lists it under
`applying`."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

TAGS = {"A.md": "# A\n\ntext #ToDo [[B]]\n", "B.md": "# B\n\ntext #todo [[A]]\n", "C.md": "# C\n\n#todo [[A]]\n"}


async def test_a_finding_a_killed_apply_left_applying_is_open_again_after_a_restart(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(TAGS)
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["audit"])
        [found] = (await vg.ok("list_findings", kind="tag_variant"))["items"]
        plane = vg.app.plane
        assert await plane.findings.claim("main", found["id"])  # as apply_finding does, then the process dies:
        listed = (await vg.ok("list_findings", status="applying"))["items"]
        await vg.err("apply_finding", "conflict", finding_id=found["id"])

        def dying_run(conn: object) -> None:  # the plan run the killed apply had begun (its journal row)
            conn.execute(  # type: ignore[attr-defined]
                "INSERT INTO plan_runs(id, vault_id, caller, kind, goal, plan_hash, status, started_at)"
                " VALUES ('run-killed', 'main', 'test', 'plan', ?, 'h', 'running', ?)",
                (found["plan"]["goal"], time.time() + 1),
            )

        await vg.app.services.state.run_write(dying_run)
    assert [f["id"] for f in listed] == [found["id"]]
    async with started(root) as vg:
        [again] = (await vg.ok("list_findings", kind="tag_variant"))["items"]
        assert again["id"] == found["id"] and again["detail"]["interrupted_run_id"] == "run-killed"
        row = await vg.app.services.state.fetchone("SELECT status FROM plan_runs WHERE id = 'run-killed'")
        assert row is not None and row[0] == "interrupted"  # the journal's recovery, before the plane's
        applied = await vg.confirmed("apply_finding", finding_id=found["id"])
        assert applied["status"] == "applied" and "#ToDo" not in vg.read("A.md")


async def test_a_second_server_leaves_a_live_servers_claim_applying(make_vault: Callable[..., Path]) -> None:
    """Two servers on one vault (an HTTP daemon and a stdio instance): the second's start opened
    again every finding still `applying`, also one the first was applying at that moment (its
    human still being asked), and could then claim and apply it too. A claim belongs to its
    server's lock (`service.storage.owners`): only a gone server's claim is opened again."""
    root = make_vault(TAGS)
    async with started(root) as first:
        await first.indexed()
        await first.ok("run_consolidation", wait=True, jobs=["audit"])
        [found] = (await first.ok("list_findings", kind="tag_variant"))["items"]
        assert await first.app.plane.findings.claim("main", found["id"])  # apply_finding, mid-way
        async with started(root) as second:
            assert (await second.ok("list_findings", status="applying"))["total"] == 1
            assert not await second.app.plane.findings.claim("main", found["id"])
            await second.err("apply_finding", "conflict", finding_id=found["id"])
    async with started(root) as third:  # the first server is gone: its claim is open again
        [again] = (await third.ok("list_findings", kind="tag_variant"))["items"]
        assert again["id"] == found["id"] and again["status"] == "open"
