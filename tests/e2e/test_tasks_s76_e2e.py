"""Session 76's tasks changes over real HTTP with the SDK client (both eras): links in
`… by function` expressions (Tasks 7.21.0: task.outlinks, task.file.outlinks*, Link members)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok


async def test_task_links_in_expressions_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    files = {
        "Plan.md": '---\nup: "[[Hub]]"\n---\n- [ ] call [[Ann|Ann B]] and [[Gone]]\n- [ ] rest\n',
        "People/Ann.md": "# Ann\n",
        "Hub.md": "# Hub\n",
    }
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = (
                "filter by function task.outlinks.some(link => link.destinationPath === null)\n"
                "group by function task.outlinks.map(l => `${l.displayText}=${l.destinationPath}`).sort().join(' ')"
            )
            out = await ok(client, "tasks_filter", query=query)
            assert [g["names"] for g in out["groups"]] == [["Ann B=People/Ann.md Gone=null"]]
            query = "filter by function task.file.outlinksInProperties.some(l => l.linksTo('Hub'))"
            assert (await ok(client, "tasks_filter", query=query))["total"] == 2
            query = "filter by function task.outlinks.some(link => link.linksTo(query.file))"
            out = await ok(client, "tasks_filter", query=query, file="People/Ann")
            assert [i["description"] for i in out["items"]] == ["call [[Ann|Ann B]] and [[Gone]]"]


async def test_group_and_sort_orders_as_the_plugin_s_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """Groups by name as localeCompare orders them; sort by function: true first, a task's date by day."""
    files = {"T.md": "- [x] b ✅ 2026-12-01\n- [ ] a #x 📅 2026-12-09\n- [ ] c 📅 2026-12-03\n"}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query="group by status\ngroup by tags")
            assert [g["names"] for g in out["groups"]] == [["Done", "(No tags)"], ["Todo", "(No tags)"], ["Todo", "#x"]]
            out = await ok(client, "tasks_filter", query="sort by function task.due")
            assert [i["description"] for i in out["items"]] == ["c", "a #x", "b"]
            out = await ok(client, "tasks_filter", query="sort by function task.description === 'b'")
            assert out["items"][0]["description"] == "b"


async def test_next_friday_as_the_plugin_reads_it_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """chrono-node's `next friday`: the next Sunday-to-Saturday week's Friday (on a Wednesday, 9 days on)."""
    files = {"T.md": "- [ ] soon 📅 2026-12-04\n- [ ] later 📅 2026-12-11\n"}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query="due on next friday", today="2026-12-02")
            assert [i["description"] for i in out["items"]] == ["later"]


async def test_sort_by_the_second_tag_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    files = {"T.md": "- [ ] ten #b #c10\n- [ ] nine #b #c9\n- [ ] one #a\n"}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query="sort by tag 2")
            assert [i["description"] for i in out["items"]] == ["nine #b #c9", "ten #b #c10", "one #a"]


async def test_an_invalid_date_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """`📅 2026-02-30` sorts first and is before no day, as the plugin's invalid date."""
    files = {"T.md": "- [ ] late 📅 2026-03-05\n- [ ] bad 📅 2026-02-30\n"}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query="sort by due")
            assert [i["description"] for i in out["items"]] == ["bad", "late"]
            assert (await ok(client, "tasks_filter", query="due before 2026-03-01"))["total"] == 0
            out = await ok(client, "tasks_filter", query="group by happens")  # an invalid date is ignored there
            assert [g["names"][0] for g in out["groups"]] == ["2026-03-05 Thursday", "No happens date"]
