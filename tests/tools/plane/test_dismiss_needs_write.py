"""dismiss_finding needs write access to the notes the finding is about (s61 T2 #11): a token that
may write only below Inbox/ cannot dismiss — for every caller, and for auto_apply — a finding about
a Projects/ note; its own Inbox/ findings it can. Through the dispatch chain and over real HTTP."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import e2e, started
from tests.keys import SECRET
from tests.sec_vault import call_with_scope, caller

VAULT = {
    "Projects/Alpha.md": "# Alpha\nAlpha links [[Nothere]].\n",
    "Inbox/Todo.md": "# Todo\nTodo links [[Missing]].\n",
}
NARROWED = "read:vault write:vault/Inbox/**"


def about(findings: list[dict[str, Any]], folder: str) -> dict[str, Any]:
    return next(f for f in findings if f["paths"] and all(p.startswith(folder) for p in f["paths"]))


async def test_a_write_narrowed_token_dismisses_only_findings_about_its_folder(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True)
        vg.principal = caller(NARROWED)
        findings = (await vg.ok("list_findings"))["items"]
        outside, inside = about(findings, "Projects/"), about(findings, "Inbox/")
        error = await vg.err("dismiss_finding", "acl_denied", finding_id=outside["id"])
        assert error["details"]["path"] == "Projects/Alpha.md"
        assert (await vg.ok("dismiss_finding", finding_id=inside["id"]))["status"] == "dismissed"
        vg.principal = caller("read:vault write:vault")
        still = {f["id"]: f["status"] for f in (await vg.ok("list_findings", status="open"))["items"]}
        assert still.get(outside["id"]) == "open" and inside["id"] not in still
        assert (await vg.ok("dismiss_finding", finding_id=outside["id"]))["status"] == "dismissed"


async def test_over_http_the_narrowed_token_is_refused(make_vault: Callable[..., Path]) -> None:
    auth = {"mode": "jwt", "jwt_secret": SECRET, "audience": "vaultgate"}
    async with e2e(make_vault(VAULT), auth=auth) as (url, harness):
        await harness.indexed()

        async def call(scope: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
            return await call_with_scope(url, scope, tool, args)

        await call("admin", "run_consolidation", {"wait": True})
        outside = about((await call(NARROWED, "list_findings", {}))["items"], "Projects/")
        refused = await call(NARROWED, "dismiss_finding", {"finding_id": outside["id"]})
        assert refused["error"]["code"] == "acl_denied", refused
        listed = (await call(NARROWED, "list_findings", {}))["items"]
        assert outside["id"] in [f["id"] for f in listed]  # still open
