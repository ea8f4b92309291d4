"""An applied finding whose run is undone is open again, end to end: a real uvicorn server and the
SDK client over HTTP, both protocol eras (tests/tools/plane/test_undone_finding_open_again.py
through the dispatch chain). Found by U10 (s94): after undo_last_plan the finding stayed
`applied`, so apply_finding refused it and pointed at undo_last_plan, already done."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.e2e.test_applied_finding_beside_adds_e2e import _token
from tests.tools.plane.test_plane import PLANTED


async def test_an_undone_finding_is_listed_open_and_applies_again(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(PLANTED)
    async with e2e(root) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        await ok(c, "run_consolidation", jobs=["duplicates"], wait=True)
        [dup] = (await ok(c, "list_findings", kind="duplicate"))["items"]
        before = snapshot(root)
        preview = await ok(c, "apply_finding", finding_id=dup["id"], dry_run=True)
        applied = await ok(c, "apply_finding", finding_id=dup["id"])
        assert applied["status"] == "applied" and preview["run"]["effects"]["files_modified"] == ["Memory/Ann.md"]
        asked = await error(c, "undo_last_plan")
        await ok(c, "undo_last_plan", elicit_token=await _token(h, asked))
        assert snapshot(root) == before
        [again] = (await ok(c, "list_findings", kind="duplicate"))["items"]
        assert (again["id"], again["status"]) == (dup["id"], "open")
        assert (await ok(c, "apply_finding", finding_id=dup["id"]))["status"] == "applied"
        assert "likes green tea in the morning." not in h.read("Memory/Ann.md")
