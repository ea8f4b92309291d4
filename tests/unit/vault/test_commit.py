"""service.vault.commit: the shielded commit, its undo on failure, and how steps report progress."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from service.vault.commit import Action, Steps, Undo, commit


def _put(path: Path, text: str | None) -> str | None:
    """Write `text` (None: remove the file); returns what was there."""
    old = path.read_text() if path.exists() else None
    if text is None:
        path.unlink()
    else:
        path.write_text(text)
    return old


def _writer(path: Path, text: str, log: list[str]) -> Action:
    async def do() -> Undo:
        old = _put(path, text)
        log.append(f"do {path.name}")

        async def undo() -> None:
            await anyio.lowlevel.checkpoint()  # an undo that awaits must not be cut short either
            _put(path, old)
            log.append(f"undo {path.name}")

        return undo

    return do


def _failing(exc: BaseException) -> Action:
    async def do() -> Undo:
        raise exc

    return do


async def test_an_os_error_mid_commit_undoes_the_done_actions_in_reverse(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("a0")
    log: list[str] = []
    actions = [_writer(tmp_path / "a.md", "a1", log), _writer(tmp_path / "b.md", "b1", log)]
    with pytest.raises(OSError, match="disk full"):
        await commit([*actions, _failing(OSError(28, "disk full"))])
    assert log == ["do a.md", "do b.md", "undo b.md", "undo a.md"]
    assert (tmp_path / "a.md").read_text() == "a0" and not (tmp_path / "b.md").exists()


async def test_a_cancellation_during_commit_waits_for_every_action(tmp_path: Path) -> None:
    reached, release = anyio.Event(), anyio.Event()
    log: list[str] = []

    async def held() -> Undo:
        reached.set()
        await release.wait()  # shielded: the cancellation below does not end this wait

        async def undo() -> None:  # pragma: no cover - nothing fails here
            pass

        return undo

    actions = [_writer(tmp_path / "a.md", "a", log), held, _writer(tmp_path / "b.md", "b", log)]
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tg:
            tg.start_soon(commit, actions)
            await reached.wait()
            scope.cancel()  # cancels the commit's task too: only the shield keeps it going
            release.set()
    assert scope.cancelled_caught
    assert log == ["do a.md", "do b.md"]
    assert (tmp_path / "b.md").read_text() == "b"


async def test_steps_report_growing_progress_across_both_phases() -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def report(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    steps = Steps("rewrite_links", report)
    for i in range(1, 201):
        await steps.step("prepare", i, 200)
    for i in range(1, 101):
        await steps.step("commit", i, 100)
    values = [p for p, _, _ in seen]
    assert values == sorted(set(values))
    assert seen[0] == (1, 200, "rewrite_links: read 1/200 notes")
    assert seen[-1] == (300, 300, "rewrite_links: wrote 100/100 files")
    assert len(seen) <= 2 * 52


async def test_a_cancelled_prepare_step_raises_at_once() -> None:
    hits: list[int] = []

    async def hook(label: str, phase: str, done: int, total: int) -> None:
        hits.append(done)

    steps = Steps("move_note", None, hook)
    with anyio.CancelScope() as scope:
        scope.cancel()
        await steps.step("prepare", 1, 10)
    assert scope.cancelled_caught and hits == []
