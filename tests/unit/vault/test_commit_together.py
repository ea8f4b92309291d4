"""service.vault.commit's `Together`: a move's link rewrites written `TOGETHER` at a time (their
fsyncs overlap), each still its own action whose undo is kept. On a failure, or a stop, the
chunk under way ends first, then every action done is undone: none is left running behind the
rollback, and a stop says exactly how many were made (`done_before_stop`)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import anyio
import pytest

from service.errors import ServerStopping
from service.vault.commit import TOGETHER, Action, Steps, Together, Undo, commit
from service.vault.journal import RECORDER, PriorState
from tests.unit.vault.test_commit import _put


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _writer(path: Path, text: str, log: list[str]) -> Action:
    async def do() -> Undo:
        old = _put(path, text)
        log.append(f"do {path.name}")

        async def undo() -> None:
            _put(path, old)
            log.append(f"undo {path.name}")

        return undo

    return do


class _Stopping:
    """A journal recorder whose server begins to stop when `stop` is set."""

    def __init__(self) -> None:
        self.stop = False

    def record(self, change: PriorState, /) -> None:  # pragma: no cover - nothing is journaled here
        pass

    def stopping(self) -> bool:
        return self.stop


async def test_the_actions_of_a_together_run_at_once(tmp_path: Path) -> None:
    """Each action waits (bounded) for the last one to start: one after the other, the first
    would wait for good; together, all of them are under way at once."""
    started = [anyio.Event() for _ in range(TOGETHER)]
    log: list[str] = []

    def action(i: int) -> Action:
        async def do() -> Undo:
            started[i].set()
            with anyio.fail_after(60):
                await started[-1].wait()
            return await _writer(tmp_path / f"n{i}.md", "new", log)()

        return do

    await commit([Together([action(i) for i in range(TOGETHER)])])
    assert sorted(log) == sorted(f"do n{i}.md" for i in range(TOGETHER))


async def test_a_chunk_starts_once_every_action_of_the_one_before_has_ended(tmp_path: Path) -> None:
    """The first chunk's first action ends last (it waits for the others to end); the next chunk's
    actions start only after it."""
    log: list[str] = []
    others_done = anyio.Event()
    ended = 0

    def action(i: int) -> Action:
        async def do() -> Undo:
            nonlocal ended
            log.append(f"start {i}")
            if i == 0:
                with anyio.fail_after(60):
                    await others_done.wait()
            undo = await _writer(tmp_path / f"n{i}.md", "new", log)()
            ended += 1
            if ended == TOGETHER - 1:
                others_done.set()
            return undo

        return do

    await commit([Together([action(i) for i in range(TOGETHER + 2)])])
    assert log.index(f"start {TOGETHER}") > log.index("do n0.md")
    assert log.index(f"start {TOGETHER + 1}") > log.index("do n0.md")
    assert len(_names(tmp_path)) == TOGETHER + 2


async def test_a_failure_in_a_together_undoes_every_done_action_once_the_others_end(tmp_path: Path) -> None:
    (tmp_path / "first.md").write_text("old")
    log: list[str] = []
    failed = anyio.Event()

    async def failing() -> Undo:
        failed.set()
        raise OSError(28, "disk full")

    async def slow() -> Undo:  # still writing when its neighbour fails: ends, then is undone
        await failed.wait()
        return await _writer(tmp_path / "slow.md", "new", log)()

    group = Together([_writer(tmp_path / "a.md", "new", log), failing, slow, _writer(tmp_path / "b.md", "new", log)])
    with pytest.raises(OSError, match="disk full"):
        await commit([_writer(tmp_path / "first.md", "new", log), group, _writer(tmp_path / "last.md", "x", log)])
    assert (tmp_path / "first.md").read_text() == "old"
    assert _names(tmp_path) == ["first.md"]
    assert log[-1] == "undo first.md" and sorted(log).count("undo slow.md") == 1
    assert "do last.md" not in log


async def test_a_stop_mid_chunk_lets_the_chunk_end_then_undoes_everything(tmp_path: Path) -> None:
    """The stop begins while the first chunk writes: its writes all end (none is cut), the next
    chunk never starts, and every write made, the moved file's included, is undone."""
    (tmp_path / "moved.md").write_text("old")
    recorder, log = _Stopping(), []

    def action(i: int) -> Action:
        async def do() -> Undo:
            if i == 1:
                recorder.stop = True
            return await _writer(tmp_path / f"n{i}.md", "new", log)()

        return do

    token = RECORDER.set(recorder)
    try:
        with pytest.raises(ServerStopping) as caught:
            await commit(
                [_writer(tmp_path / "moved.md", "new", log), Together([action(i) for i in range(3 * TOGETHER)])]
            )
    finally:
        RECORDER.reset(token)
    assert caught.value.details == {"done_before_stop": 1 + TOGETHER, "total": 1 + 3 * TOGETHER}
    made = sorted(entry for entry in log if entry.startswith("do "))
    assert made == sorted(["do moved.md", *(f"do n{i}.md" for i in range(TOGETHER))])
    assert sorted(entry.replace("undo", "do") for entry in log if entry.startswith("undo ")) == made
    assert log[-1] == "undo moved.md"
    assert _names(tmp_path) == ["moved.md"] and (tmp_path / "moved.md").read_text() == "old"


async def test_progress_counts_every_action_of_a_together() -> None:
    seen: list[tuple[float, float | None]] = []

    async def report(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total))

    async def nothing() -> Undo:
        async def undo() -> None:  # pragma: no cover - nothing fails here
            pass

        return undo

    steps = Steps("rename_note", report)
    await commit([nothing, Together([nothing] * (3 * TOGETHER + 1)), nothing], steps)
    total = 3 * TOGETHER + 3
    assert seen[0] == (1, total) and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted({d for d, _ in seen})


async def test_a_caller_cancelled_mid_chunk_waits_for_the_chunk_then_undoes_it(tmp_path: Path) -> None:
    """The task running the change is cancelled (a plain `Task.cancel`, past the shield) while a
    chunk writes: every write of the chunk still ends, the next chunk never starts, and everything
    made is undone before the cancellation is raised."""
    log: list[str] = []
    all_started, go_on = anyio.Event(), anyio.Event()
    started = 0

    def action(i: int) -> Action:
        async def do() -> Undo:
            nonlocal started
            started += 1
            if started == TOGETHER:
                all_started.set()
            with anyio.fail_after(60):
                await go_on.wait()
            return await _writer(tmp_path / f"n{i}.md", "new", log)()

        return do

    task = asyncio.ensure_future(commit([Together([action(i) for i in range(2 * TOGETHER)])]))
    with anyio.fail_after(60):
        await all_started.wait()
    task.cancel()
    await asyncio.sleep(0)  # the cancellation reaches the change's task before the writes go on
    go_on.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(e for e in log if e.startswith("do ")) == sorted(f"do n{i}.md" for i in range(TOGETHER))
    assert sorted(e for e in log if e.startswith("undo ")) == sorted(f"undo n{i}.md" for i in range(TOGETHER))
    assert _names(tmp_path) == []


async def test_a_second_cancel_during_the_rollback_does_not_stop_it(tmp_path: Path) -> None:
    """Cancelled mid-chunk, then once more while the rollback undoes (each undo hops off the loop, as
    a real one does): every write made is still put back, then the cancellation is raised. Before,
    the second cancel stopped the rollback at its next undo: seven of eight notes stayed new."""
    log: list[str] = []
    all_started, go_on, undoing = anyio.Event(), anyio.Event(), anyio.Event()
    started = 0

    def action(i: int) -> Action:
        async def do() -> Undo:
            nonlocal started
            started += 1
            if started == TOGETHER:
                all_started.set()
            with anyio.fail_after(60):
                await go_on.wait()
            undo = await _writer(tmp_path / f"n{i}.md", "new", log)()

            async def off_the_loop() -> None:
                undoing.set()
                await asyncio.sleep(0)
                await undo()

            return off_the_loop

        return do

    task = asyncio.ensure_future(commit([Together([action(i) for i in range(2 * TOGETHER)])]))
    with anyio.fail_after(60):
        await all_started.wait()
    task.cancel()
    await asyncio.sleep(0)
    go_on.set()
    with anyio.fail_after(60):
        await undoing.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(e for e in log if e.startswith("undo ")) == sorted(f"undo n{i}.md" for i in range(TOGETHER))
    assert _names(tmp_path) == []


async def test_a_single_action_cancelled_in_its_write_is_undone(tmp_path: Path) -> None:
    """An action of its own (not a `Together`'s) cancelled while its write runs off the loop: the
    write ends, its undo is kept and run. Before, the cancel reached the action's own await: the
    write went on in its thread and no undo was kept (the note stayed new)."""
    path = tmp_path / "one.md"
    writing, go_on = threading.Event(), threading.Event()

    def write() -> str | None:
        writing.set()
        go_on.wait(60)
        return _put(path, "new")

    async def do() -> Undo:
        old = await asyncio.to_thread(write)

        async def undo() -> None:
            await asyncio.to_thread(_put, path, old)

        return undo

    task = asyncio.ensure_future(commit([do]))
    await asyncio.to_thread(writing.wait, 60)
    task.cancel()
    await asyncio.sleep(0)
    go_on.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _names(tmp_path) == []
