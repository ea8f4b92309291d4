"""tasks_filter's dependency filters through the dispatch chain, as the Tasks plugin documents them:
a task is blocked when it is not done and depends on (⛔ / [dependsOn:: ]) the id (🆔 / [id:: ])
of a task that is not done; blocking when it is not done and a task that is not done depends on
its id; over every task of the vault the caller may read, not only those the query keeps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started

PLAN = """# Plan

- [ ] design 🆔 dsgn
- [ ] build ⛔ dsgn 🆔 bld
- [ ] ship ⛔ bld,dsgn
- [x] research 🆔 rsch ✅ 2026-11-01
- [ ] write docs ⛔ rsch
- [/] review [id:: rev]
- [ ] publish [dependsOn:: rev]
- [-] old plan ⛔ dsgn ❌ 2026-10-01
- [ ] free task
- [ ] waits on gone ⛔ nosuch
- [ ] waits on secret ⛔ sec
"""
FILES = {"Plan.md": PLAN, "Private/Secret.md": "- [ ] secret blocker 🆔 sec\n"}
EVERY = {
    "design", "build", "ship", "research", "write docs", "review", "publish", "old plan", "free task",
    "waits on gone", "waits on secret", "secret blocker",
}  # fmt: skip


async def names(vg: Harness, query: str) -> set[str]:
    out = await vg.ok("tasks_filter", query=query, today="2026-11-28", limit=500)
    assert out["total"] == len(out["items"])
    return {i["description"] for i in out["items"]}


@pytest.mark.covers("tasks_filter", "success")
async def test_blocked_and_blocking_tasks_as_the_plugin_finds_them(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        blocked = {"build", "ship", "publish", "waits on secret"}
        blocking = {"design", "build", "review", "secret blocker"}
        assert await names(vg, "is blocked") == blocked
        assert await names(vg, "is not blocked") == EVERY - blocked
        assert await names(vg, "is blocking") == blocking
        assert await names(vg, "is not blocking") == EVERY - blocking
        # the blocker need not be among the tasks the query keeps
        assert await names(vg, "path includes Plan\nis blocking") == blocking - {"secret blocker"}
        assert await names(vg, "description includes ship\nis blocked") == {"ship"}
        assert await names(vg, "(is blocked) AND (is blocking)") == {"build"}
        assert await names(vg, "(is blocked) OR (is blocking)") == blocked | blocking
        assert await names(vg, "NOT (is blocked)\nnot done") == {
            "design", "review", "free task", "write docs", "waits on gone", "secret blocker",
        }  # fmt: skip
        ids = {"design", "build", "research", "review", "secret blocker"}
        assert await names(vg, "has id") == ids and await names(vg, "no id") == EVERY - ids
        depends = {"build", "ship", "write docs", "publish", "old plan", "waits on gone", "waits on secret"}
        assert await names(vg, "has depends on") == depends and await names(vg, "no depends on") == EVERY - depends
        assert await names(vg, "id includes BL") == {"build"}
        assert await names(vg, "id regex matches /^r/") == {"research", "review"}
        assert await names(vg, "id does not include s") == EVERY - {"design", "research", "secret blocker"}
        grouped = await vg.ok("tasks_filter", query="is blocked\ngroup by filename", today="2026-11-28")
        assert grouped["groups"] == [{"names": ["Plan"], "count": 4}]


async def test_a_task_the_caller_may_not_read_blocks_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), acl={"prefix_rules": [{"path": "Private", "read": "deny"}]}) as vg:
        await vg.indexed()
        assert await names(vg, "is blocked") == {"build", "ship", "publish"}
        assert await names(vg, "is blocking") == {"design", "build", "review"}
        assert "secret blocker" not in await names(vg, "has id")


@pytest.mark.covers("tasks_filter", "success")
async def test_sort_and_group_by_id(make_vault: Callable[..., Path]) -> None:
    """`sort by id` / `group by id` (the plugin's id field: 🆔 or [id:: ]) were refused as unknown
    fields. Ids compare as the plugin compares them, digits by value ('t9' before 't11'), letters
    without regard to case; a task without an id sorts first ('' before any id) and is in no
    group ('(no group)', first: the plugin's group named '', which localeCompare puts first; it was
    last before session 76)."""
    ids = "- [ ] nine 🆔 t9\n- [ ] eleven [id:: t11]\n- [ ] upper 🆔 B2\n- [ ] lower 🆔 a7\n- [ ] none\n"
    async with started(make_vault({"Ids.md": ids})) as vg:
        await vg.indexed()
        out = await vg.ok("tasks_filter", query="sort by id")
        assert [i["description"] for i in out["items"]] == ["none", "lower", "upper", "nine", "eleven"]
        out = await vg.ok("tasks_filter", query="sort by id reverse")
        assert [i["description"] for i in out["items"]] == ["eleven", "nine", "upper", "lower", "none"]
        out = await vg.ok("tasks_filter", query="group by id")
        assert out["groups"] == [
            {"names": ["(no group)"], "count": 1}, {"names": ["a7"], "count": 1}, {"names": ["B2"], "count": 1},
            {"names": ["t9"], "count": 1}, {"names": ["t11"], "count": 1}]  # fmt: skip
        out = await vg.ok("tasks_filter", query="group by id reverse\nhas id")
        assert [g["names"][0] for g in out["groups"]] == ["t11", "t9", "B2", "a7"]
        err = await vg.err("tasks_filter", "query_syntax_error", query="group by ids")
        assert "id" in err["message"]
