"""run_consolidation as an MCP task for a caller whose path rules deny the memory folder: the
task's result counts only the findings it may see, as the tool's own answer does — never the
memory's duplicates (real uvicorn, SDK client)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import e2e
from tests.e2e.test_consolidation_tasks_e2e import admin
from tests.e2e.test_plan_tasks_e2e import Tasks, client
from tests.keys import SECRET

VAULT = {
    "Memory/Ann.md": "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n"
    "- Likes green tea in the morning ^m-1\n- likes green tea in the morning. ^m-2\n",
    "Home.md": "# Home\n\nSee [[Hmoe]].\n",
}
DENY_MEMORY = {"prefix_rules": [{"path": "Memory", "read": "deny", "write": "deny"}]}


async def test_a_task_result_counts_only_the_findings_its_caller_may_see(make_vault: Callable[..., Path]) -> None:
    auth = {"mode": "jwt", "jwt_secret": SECRET}
    async with e2e(make_vault(VAULT), auth=auth, tool_facade={"mode": "flat"}, acl=DENY_MEMORY) as (url, h):
        await h.indexed()
        tasks = Tasks()
        async with client(url, admin("alice"), "auto", tasks) as alice:
            result = await alice.call_tool("run_consolidation", {})
            assert len(tasks.handles) == 1  # it ran as a task
            run = result.structured_content
            assert run is not None and run["status"] == "done", result
            per_job = {j["job"]: j["findings"] for j in run["jobs"]}
            assert per_job["duplicates"] == 0, per_job  # Ann's duplicate is in Memory/, denied
            assert per_job["audit"] >= 1  # the broken link in Home.md is its to see
            listed = (await alice.call_tool("list_findings", {"limit": 500})).structured_content
            assert listed is not None
            assert run["new"] == listed["total"] == sum(per_job.values())
        found = h.app.plane.findings
        assert [f async for f in found.scan(next(iter(h.app.vaults)), kind="duplicate")]  # the run did find it
