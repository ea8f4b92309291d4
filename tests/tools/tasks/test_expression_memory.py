"""tasks_filter `… by function` expressions through the dispatch chain: what one evaluation builds
is bounded as a whole by [limits] max_eval_bytes, not only value by value (each name held its own
text under max_value_bytes, so a query with n names could hold n x 16 MB), and the evaluation runs
off the event loop, so another call is answered while a slow filter runs."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.tasks import filtering
from tests.conftest import started

FILES = {"T.md": "- [ ] one 📅 2023-06-11\n- [ ] two\n", "Other.md": "# Other\n\nread meanwhile\n"}
TEN_K = "const a = 'x'.padStart(10000, 'x');"


def _names(count: int, each: str) -> str:
    return " ".join(f"const n{i} = {each} + '{i}';" for i in range(count))


@pytest.mark.covers("tasks_filter", "failure")
async def test_texts_held_by_many_names_stop_at_the_evaluation_s_memory_budget(make_vault: Callable[..., Path]) -> None:
    """Seven names of 10 M characters each (each under the default 16 MB max_value_bytes) pass the
    default 64 MiB max_eval_bytes together."""
    ten_m = f"{TEN_K} const b = `{'${a}' * 1000}`;"
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        query = f"group by function {ten_m} {_names(7, 'b')} return n6.length"
        err = await vg.err("tasks_filter", "compute_budget_exceeded", query=query, today="2023-06-11")
        assert err["details"]["limit"] == "held"
        assert err["details"]["max_eval_bytes"] == 64 * 1024 * 1024
        query = f"group by function {ten_m} {_names(2, 'b')} return n1.length"
        out = await vg.ok("tasks_filter", query=query, today="2023-06-11")
        assert [g["names"] for g in out["groups"]] == [["10000001"]]


@pytest.mark.covers("tasks_filter", "failure")
async def test_lists_names_and_kept_sort_keys_count_together(make_vault: Callable[..., Path]) -> None:
    files = {"A.md": "".join(f"- [ ] a{i:02d}\n" for i in range(20)), "B.md": "- [ ] b\n" * 10}
    limits = {"max_value_bytes": 100_000, "max_eval_bytes": 250_000}
    async with started(make_vault(files), limits=limits) as vg:
        await vg.indexed()
        big = f"{TEN_K} const b = `{'${a}' * 9}`;"  # 90,000 characters
        lists = " ".join(f"const l{i} = a.split('');" for i in range(13))  # 13 x 10,000 one-character texts
        for body in (
            f"{big} {_names(2, 'b')} return 1",  # two more names of 90,001
            f"{TEN_K} {lists} return 1",
            f"{big} const c = b.toLowerCase(); const d = b.slice(1); return 1",
            f"{big} const f = (x) => x + '!'; const c = f(b); const d = f(b); return 1",  # a declared arrow's result
        ):
            err = await vg.err("tasks_filter", "compute_budget_exceeded", query=f"group by function {body}")
            assert err["details"]["limit"] == "held", body
            assert err["details"]["max_eval_bytes"] == 250_000
        # Sort keys are kept across tasks: 20 of 10,003 characters pass 250,000 together, 30 do not.
        sort = "sort by function 'x'.padStart(10000, 'x') + task.description"
        out = await vg.ok("tasks_filter", query=f"path includes A\n{sort}")
        assert out["total"] == 20
        err = await vg.err("tasks_filter", "compute_budget_exceeded", query=sort)
        assert err["details"]["limit"] == "held"
        # What an arrow builds and drops is given back: 1,000 texts of 10,001 built, numbers kept.
        dropped = f"group by function {TEN_K} return a.split('').slice(0, 1000).map(c => (a + c).length).length"
        out = await vg.ok("tasks_filter", query=dropped)
        assert [g["names"] for g in out["groups"]] == [["1000"]]
        # Each task's evaluation starts afresh: 70,000 per task, 30 tasks.
        per_task = f"filter by function {TEN_K} const b = `{'${a}' * 6}`; return b.length > 0"
        out = await vg.ok("tasks_filter", query=per_task)
        assert out["total"] == 30


@pytest.mark.covers("tasks_filter", "success")
async def test_another_call_is_answered_while_a_filter_runs(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checked by ordering: the query's evaluation, once started, waits until another call has been
    answered, which can only happen when it runs off the loop (10 s at most: on the loop nothing
    else runs meanwhile, and the order then fails)."""
    events: list[str] = []
    began, release = asyncio.Event(), threading.Event()
    real = filtering.run_columns

    def held(*args: Any) -> Any:
        events.append("run start")
        loop.call_soon_threadsafe(began.set)
        release.wait(10)
        events.append("run end")
        return real(*args)

    loop = asyncio.get_running_loop()
    monkeypatch.setattr(filtering, "run_columns", held)
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        got = asyncio.create_task(vg.call("tasks_filter", query="filter by function task.due.moment !== null"))
        await asyncio.wait([asyncio.ensure_future(began.wait()), got], return_when=asyncio.FIRST_COMPLETED)
        out = await vg.ok("read_note", path="Other")
        assert "read meanwhile" in out["content"]
        events.append("other answered")
        release.set()
        result = await got
        assert not result.is_error, result.structured
        assert events == ["run start", "other answered", "run end"], events
        assert [i["description"] for i in (result.structured or {})["items"]] == ["one"]


@pytest.mark.covers("tasks_filter", "failure")
async def test_a_hostile_filter_runs_to_its_budget_while_other_calls_are_answered(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nested loops over 10,000 characters run until the query's time budget (3 s here); a read
    made once they have started is answered before they end."""
    loops = (
        "filter by function 'x'.padStart(10000, 'x').split('').map(c => 'x'.padStart(10000, 'x').split('')"
        ".filter(d => d === c).length).length > 0"
    )
    began = asyncio.Event()
    real = filtering.run_columns

    def signalled(*args: Any) -> Any:
        loop.call_soon_threadsafe(began.set)
        return real(*args)

    loop = asyncio.get_running_loop()
    monkeypatch.setattr(filtering, "run_columns", signalled)
    async with started(make_vault(FILES), search={"regex_budget_ms": 3000}) as vg:
        await vg.indexed()
        slow = asyncio.create_task(vg.call("tasks_filter", query=loops))
        await asyncio.wait([asyncio.ensure_future(began.wait()), slow], return_when=asyncio.FIRST_COMPLETED)
        out = await vg.ok("read_note", path="Other")
        assert "read meanwhile" in out["content"]
        assert not slow.done()  # on the loop, the read could only be answered after the query's 3 s
        result = await asyncio.wait_for(slow, 60)
        assert result.is_error and result.structured is not None
        assert result.structured["error"]["details"]["limit"] == "seconds"


@pytest.mark.covers("tasks_filter", "failure")
async def test_a_task_s_tags_read_by_many_names_count_together(make_vault: Callable[..., Path]) -> None:
    """task.tags (and task.dependsOn) is a new list at each read: 30 names each holding the 200 tags
    (~10,400 characters) of one task pass 250,000 together."""
    line = "- [ ] many " + " ".join(f"#t{i:03d}{'x' * 46}" for i in range(200)) + "\n"
    names = " ".join(f"const n{i} = task.tags;" for i in range(30))
    limits = {"max_value_bytes": 100_000, "max_eval_bytes": 250_000}
    async with started(make_vault({"Tags.md": line}), limits=limits) as vg:
        await vg.indexed()
        err = await vg.err("tasks_filter", "compute_budget_exceeded", query=f"group by function {names} return 1")
        assert err["details"]["limit"] == "held"
        few = " ".join(f"const n{i} = task.tags;" for i in range(3))
        out = await vg.ok("tasks_filter", query=f"group by function {few} return n2.length")
        assert out["groups"] == [{"names": ["200"], "count": 1}]
