"""Every count and filter of open tasks reads one definition (`service.obsidian.task_status`): a
task is open when its status type is todo or in_progress by the vault's Tasks plugin statuses,
a character they do not name being todo. index_status' `open_tasks` (the indexer's counts, kept in
step with writes, and a restricted caller's), the plane digest's open tasks, list_tasks' `open` /
`closed` and tasks_filter's `not done` / `done` give the same tasks. Before, index_status and the
digest counted `- [ ]` only: 1 here where list_tasks listed 4 open tasks. Through the dispatcher."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

PLUGIN = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
STATUSES = {
    "statusSettings": {
        "customStatuses": [  # the plugin's default custom statuses first, as its settings save them
            {"symbol": "/", "name": "In Progress", "nextStatusSymbol": "x", "type": "IN_PROGRESS"},
            {"symbol": "-", "name": "Cancelled", "nextStatusSymbol": " ", "type": "CANCELLED"},
            {"symbol": "w", "name": "Waiting", "nextStatusSymbol": "x", "type": "IN_PROGRESS"},
            {"symbol": "d", "name": "Dropped", "nextStatusSymbol": " ", "type": "CANCELLED"},
            {"symbol": "~", "name": "Pro", "nextStatusSymbol": "~", "type": "NON_TASK"},
        ]
    }
}
# open: ' ', '/', 'X' (unknown: todo), 'w' (custom in progress); closed: 'x', '-', 'd', '~'
NOTE = "# T\n\n- [ ] a\n- [/] b\n- [X] c\n- [w] g\n- [x] d\n- [-] e\n- [d] f\n- [~] h\n"
OPEN = ["a", "b", "c", "g"]
CLOSED = ["d", "e", "f", "h"]


def _texts(out: dict[str, object]) -> list[str]:
    return sorted(str(t["text"]) for t in out["items"])  # type: ignore[attr-defined]


async def test_every_open_count_and_filter_agrees(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Work/T.md": NOTE, PLUGIN: json.dumps(STATUSES)})
    async with started(root) as vg:
        await vg.indexed()
        status = await vg.ok("index_status")
        assert (status["tasks"], status["open_tasks"]) == (8, 4)
        assert _texts(await vg.ok("list_tasks", status=["open"])) == OPEN
        assert _texts(await vg.ok("list_tasks", status=["closed"])) == CLOSED
        assert _texts(await vg.ok("tasks_filter", query="not done")) == OPEN
        assert _texts(await vg.ok("tasks_filter", query="done")) == CLOSED
        digest = (await vg.ok("run_consolidation", jobs=["digest"], wait=True))["jobs"]
        assert [j["status"] for j in digest] == ["ran"], digest
        [found] = (await vg.ok("list_findings", kind="digest"))["items"]
        assert found["detail"]["open_tasks"] == 4 and "4 open tasks" in found["detail"]["text"], found

        # Kept in step with a write: to do -> in progress stays open, in progress -> done is not.
        await vg.ok("set_task_status", path="Work/T.md", line=3, status="/", expected_text="a")
        await vg.ok("set_task_status", path="Work/T.md", line=4, status="x", expected_text="b")
        await vg.settled()
        assert (await vg.ok("index_status"))["open_tasks"] == 3
        assert len((await vg.ok("list_tasks", status=["open"]))["items"]) == 3

        # The vault's statuses are read with the counts: 'w' made a done status counts at once.
        STATUSES["statusSettings"]["customStatuses"][2]["type"] = "DONE"  # type: ignore[index]
        try:
            (root / PLUGIN).write_text(json.dumps(STATUSES), encoding="utf-8")
        finally:
            STATUSES["statusSettings"]["customStatuses"][2]["type"] = "IN_PROGRESS"  # type: ignore[index]
        assert (await vg.ok("index_status"))["open_tasks"] == 2
        assert len((await vg.ok("tasks_filter", query="not done"))["items"]) == 2


async def test_a_restricted_callers_open_tasks_agree(make_vault: Callable[..., Path]) -> None:
    files = {"Work/T.md": NOTE, "Private/P.md": "# P\n\n- [/] hidden\n", PLUGIN: json.dumps(STATUSES)}
    acl = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
    async with started(make_vault(files), acl=acl) as vg:
        await vg.indexed()
        status = await vg.ok("index_status")
        assert (status["tasks"], status["open_tasks"]) == (8, 4)
        assert _texts(await vg.ok("list_tasks", status=["open"])) == OPEN


async def test_an_on_hold_status_is_open_and_searchable(make_vault: Callable[..., Path]) -> None:
    """The plugin's ON_HOLD status type (Tasks 7.23): open for `not done` and every count, its own
    `status.type`. Before, a custom status typed ON_HOLD was dropped from the settings read
    (its character then an unknown to-do) and `status.type is ON_HOLD` was a query_syntax_error."""
    held = {"symbol": "h", "name": "On Hold", "nextStatusSymbol": " ", "type": "ON_HOLD"}
    settings = {"statusSettings": {"customStatuses": [held]}}
    note = "# H\n\n- [h] waiting on Bob\n- [ ] plain\n- [x] gone\n"
    async with started(make_vault({"H.md": note, PLUGIN: json.dumps(settings)})) as vg:
        await vg.indexed()
        assert (await vg.ok("index_status"))["open_tasks"] == 2
        listed = await vg.ok("list_tasks", status=["on_hold"])
        assert [(t["text"], t["status_type"]) for t in listed["items"]] == [("waiting on Bob", "on_hold")]
        assert _texts(await vg.ok("list_tasks", status=["open"])) == ["plain", "waiting on Bob"]
        assert _texts(await vg.ok("tasks_filter", query="status.type is ON_HOLD")) == ["waiting on Bob"]
        assert _texts(await vg.ok("tasks_filter", query="not done\nstatus.type is not on_hold")) == ["plain"]
        grouped = await vg.ok("tasks_filter", query="group by status.type")
        assert [g["names"] for g in grouped["groups"]] == [["TODO"], ["ON_HOLD"], ["DONE"]]
        assert [t["status_type"] for t in grouped["items"]] == ["todo", "on_hold", "done"]


async def test_set_task_status_on_hold_writes_the_vaults_on_hold_character(make_vault: Callable[..., Path]) -> None:
    """set_task_status takes the type list_tasks answers; `on_hold` has no core character, so it is
    the vault's own ON_HOLD status (before: "'on_hold' is no task status")."""
    held = {"symbol": "h", "name": "On Hold", "nextStatusSymbol": " ", "type": "ON_HOLD"}
    note = "# H\n\n- [ ] ask Bob\n"
    settings = {"statusSettings": {"customStatuses": [held]}}
    async with started(make_vault({"H.md": note, PLUGIN: json.dumps(settings)})) as vg:
        await vg.indexed()
        out = await vg.ok("set_task_status", path="H", line=3, status="On Hold", expected_text="ask Bob")
        assert out["status_type"] == "on_hold" and vg.read("H.md") == "# H\n\n- [h] ask Bob\n"
        await vg.settled()
        assert (await vg.ok("index_status"))["open_tasks"] == 1
    async with started(make_vault({"H.md": note})) as vg:
        err = await vg.err("set_task_status", "validation_error", path="H", line=3, status="on_hold",
                           expected_text="ask Bob")  # fmt: skip
        assert err["details"]["reason"] == "no_such_status" and vg.read("H.md") == note
