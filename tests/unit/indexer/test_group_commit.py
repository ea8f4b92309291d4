"""Group commit: concurrent writers' changes reach the index in shared rounds, each writer
returns only once its own change is in, a failing change does not keep others out, and a
cancelled writer's change is still applied."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from service.indexer.group import GroupCommit
from service.vault.events import FileChange
from tests.conftest import started


class Recorder:
    """An `apply` that records its rounds; the first round waits for `release`."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.rounds: list[list[str]] = []
        self.applied: set[str] = set()
        self.release = asyncio.Event()
        self.first_started = asyncio.Event()
        self.fail_on = fail_on

    async def __call__(self, changes: Sequence[FileChange]) -> None:
        paths = [c.path for c in changes]
        self.rounds.append(paths)
        if len(self.rounds) == 1:
            self.first_started.set()
            await self.release.wait()
        if self.fail_on in paths:
            raise ValueError("unreadable note")
        self.applied.update(paths)


def change(path: str) -> FileChange:
    return FileChange("modified", path)


async def test_writers_arriving_during_a_round_share_the_next_one() -> None:
    apply = Recorder()
    group = GroupCommit(apply, "test")
    first = asyncio.create_task(group.submit([change("a.md")]))
    await apply.first_started.wait()
    others = [asyncio.create_task(group.submit([change(f"{n}.md")])) for n in "bcde"]
    await asyncio.sleep(0)  # let them queue
    assert not any(t.done() for t in [first, *others])
    apply.release.set()
    await asyncio.gather(first, *others)
    assert apply.rounds == [["a.md"], ["b.md", "c.md", "d.md", "e.md"]]
    assert (group.rounds, group.submitted) == (2, 5)


async def test_a_failing_change_is_retried_alone_and_the_others_still_land() -> None:
    apply = Recorder(fail_on="bad.md")
    group = GroupCommit(apply, "test")
    first = asyncio.create_task(group.submit([change("a.md")]))
    await apply.first_started.wait()
    rest = [asyncio.create_task(group.submit([change(p)])) for p in ("b.md", "bad.md", "c.md")]
    await asyncio.sleep(0)
    apply.release.set()
    await asyncio.gather(first, *rest)  # nobody sees the index failure: their files are written
    assert apply.applied == {"a.md", "b.md", "c.md"}
    assert apply.rounds[1] == ["b.md", "bad.md", "c.md"] and apply.rounds[2:] == [["b.md"], ["bad.md"], ["c.md"]]


async def test_a_cancelled_writer_still_gets_its_change_applied() -> None:
    apply = Recorder()
    group = GroupCommit(apply, "test")
    waiting = asyncio.create_task(group.submit([change("a.md")]))
    await apply.first_started.wait()
    waiting.cancel()
    apply.release.set()
    for _ in range(10):
        await asyncio.sleep(0)
    assert apply.applied == {"a.md"}


async def test_concurrent_writes_are_each_searchable_when_their_call_returns(make_vault: Callable[..., Path]) -> None:
    """...and the links among them resolve: the path set grew by each round's new notes."""
    async with started(make_vault({"Old.md": "# Old\n"})) as vg:
        await vg.indexed()

        async def write_then_find(n: int) -> None:
            body = f"# N{n}\n\nuniqueword{n}x, see [[Old]] and [[n{(n + 1) % 24}]]\n"
            await vg.ok("create_note", path=f"Batch/n{n}.md", content=body)
            found = await vg.ok("search_text", query=f"uniqueword{n}x")
            assert [i["path"] for i in found["items"]] == [f"Batch/n{n}.md"]

        await asyncio.gather(*(write_then_find(n) for n in range(24)))
        listed = await vg.ok("list_notes", folder="Batch", limit=100)
        assert len(listed["items"]) == 24
        backlinks = await vg.ok("get_backlinks", path="Old", limit=100)
        assert len(backlinks["items"]) == 24
        assert (await vg.ok("find_broken_links"))["items"] == []


async def test_a_new_note_resolves_the_broken_links_to_its_name_and_no_others(make_vault: Callable[..., Path]) -> None:
    files = {
        "A.md": "[[Later]] and [[Sub/Later]] and [[Later.md]] and [[Elsewhere]]\n",
        "B.md": "![[later]]\n",
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        broken = {(i["path"], i["target"]) for i in (await vg.ok("find_broken_links", limit=100))["items"]}
        assert len(broken) == 5
        await vg.ok("create_note", path="Sub/Later.md", content="# Later\n")
        left = {(i["path"], i["target"]) for i in (await vg.ok("find_broken_links", limit=100))["items"]}
        assert {t for _, t in left} == {"Elsewhere"}
        assert len((await vg.ok("get_backlinks", path="Sub/Later", limit=100))["items"]) == 4


async def test_queued_updates_are_numbered_and_waited_for_by_number() -> None:
    apply = Recorder()
    group = GroupCommit(apply, "test")
    first = group.enqueue([change("a.md")])
    await apply.first_started.wait()
    second, third = group.enqueue([change("b.md")]), group.enqueue([change("c.md")])
    assert (first, second, third) == (1, 2, 3) and group.pending == 3
    waiter = asyncio.create_task(group.wait_applied(second))
    await asyncio.sleep(0)
    assert not waiter.done() and group.applied == 0  # the first round is held
    apply.release.set()
    await waiter
    assert group.applied == 3 and group.pending == 0  # b and c shared the second round
    assert apply.rounds == [["a.md"], ["b.md", "c.md"]]
    await group.wait_applied(1)  # already applied: returns at once


async def test_stop_lets_queued_updates_land_and_releases_waiters() -> None:
    apply = Recorder()
    group = GroupCommit(apply, "test")
    group.enqueue([change("a.md")])
    await apply.first_started.wait()
    seq = group.enqueue([change("b.md")])
    stopping = asyncio.create_task(group.stop())
    await asyncio.sleep(0)
    apply.release.set()
    await stopping
    await group.wait_applied(seq)
    assert apply.applied == {"a.md", "b.md"}
