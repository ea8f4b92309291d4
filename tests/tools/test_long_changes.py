"""Long changes through the full dispatch chain: progress, cancellation, all or nothing.

Each long tool runs on a vault of 200 notes that link to `Hub` and carry `#topic`. A call with a
progress reporter gets notifications that only grow and end at their total; a call cancelled
from its first progress notification (held at that step by `Hold`, so the cancellation is seen
there) changes no byte of the vault and no row of the index; a call cancelled while it writes
finishes every write (the commit phase is shielded); a write that fails mid-way is undone.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from service.app import VaultgateApp
from service.dispatch.context import ToolResult
from service.vault.commit import StepHook
from tests.conftest import Harness, settings_for, write_files
from tests.long_changes import HUB_NOTES, Hold, assert_progress, hub_files, index_state, vault_bytes

Progress = list[tuple[float, float | None, str | None]]


@dataclass(frozen=True)
class Case:
    tool: str
    args: dict[str, Any]
    confirm: bool  # the applying call needs a confirmation token first
    applied: Callable[[Path], bool]  # the whole change is on disk


def _linked_to(name: str) -> Callable[[Path], bool]:
    def check(root: Path) -> bool:
        texts = [(root / f"Notes/n{i:03}.md").read_text() for i in range(HUB_NOTES)]
        return all(f"[[{name}]] and [[{name}#Part|part]]" in t for t in texts)

    return check


def _renamed(root: Path) -> bool:
    return not (root / "Hub.md").exists() and (root / "Centre.md").exists() and _linked_to("Centre")(root)


def _retagged(root: Path) -> bool:
    return all("#subject" in (root / f"Notes/n{i:03}.md").read_text() for i in range(HUB_NOTES))


def _created(root: Path) -> bool:
    return all((root / f"Bulk/b{i:03}.md").read_text() == f"bulk {i}\n" for i in range(HUB_NOTES))


CASES = [
    Case("rename_note", {"path": "Hub", "new_path": "Centre"}, False, _renamed),
    Case("move_note", {"path": "Hub", "new_path": "Centre"}, False, _renamed),
    Case("rewrite_links", {"old_target": "Hub", "new_target": "Other", "dry_run": False}, True, _linked_to("Other")),
    Case("rename_tag", {"old": "topic", "new": "subject", "dry_run": False}, True, _retagged),
    Case(
        "bulk_create_notes",
        {"notes": [{"path": f"Bulk/b{i:03}", "content": f"bulk {i}\n"} for i in range(HUB_NOTES)]},
        False,
        _created,
    ),
]
IDS = [c.tool for c in CASES]


@contextlib.asynccontextmanager
async def hub(tmp_path: Path, hook: StepHook | None = None) -> AsyncIterator[Harness]:
    root = tmp_path / "hub"
    root.mkdir()
    write_files(root, hub_files())
    app = VaultgateApp(settings_for(root, notes={"bulk_confirm_above": 500}), step_hook=hook)
    async with app.running():
        harness = Harness(app, root)
        await harness.indexed()
        yield harness


async def _args(vg: Harness, case: Case) -> dict[str, Any]:
    if not case.confirm:
        return dict(case.args)
    return {**case.args, "elicit_token": await vg.token_for(case.tool, **case.args)}


async def _call(vg: Harness, tool: str, args: dict[str, Any], seen: Progress, on_report: Any = None) -> ToolResult:
    async def report(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))
        if on_report is not None:
            on_report()

    return await vg.app.dispatcher.call(tool, args, principal=vg.principal, progress=report)


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_progress_grows_to_its_total_and_the_change_is_whole(tmp_path: Path, case: Case) -> None:
    async with hub(tmp_path) as vg:
        seen: Progress = []
        result = await _call(vg, case.tool, await _args(vg, case), seen)
        assert not result.is_error, result.structured
        assert case.applied(vg.root)
        assert_progress(seen)
        # Both phases are reported: reading the notes, then writing the files.
        assert any("read" in (m or "") for _, _, m in seen) and "wrote" in (seen[-1][2] or "")
        assert len(seen) <= 2 * 60  # about 50 notifications a phase, not one per note


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_cancelled_while_reading_changes_nothing(tmp_path: Path, case: Case) -> None:
    hold = Hold("prepare", 1, label=case.tool)
    async with hub(tmp_path, hold) as vg:
        args = await _args(vg, case)
        files, index = vault_bytes(vg.root), await index_state(vg.app.db)
        seen: Progress = []
        with anyio.CancelScope() as scope:
            await _call(vg, case.tool, args, seen, on_report=scope.cancel)
        assert scope.cancelled_caught and hold.cancelled.is_set()
        assert len(seen) == 1  # cancelled right after its first progress notification
        assert vault_bytes(vg.root) == files
        assert await index_state(vg.app.db) == index
        # Nothing is left locked or half-done: the same call now goes through.
        again = await vg.app.dispatcher.call(case.tool, await _args(vg, case), principal=vg.principal)
        assert not again.is_error, again.structured
        assert case.applied(vg.root)


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_cancelled_while_writing_finishes_every_write(tmp_path: Path, case: Case) -> None:
    hold = Hold("commit", 1, label=case.tool)
    async with hub(tmp_path, hold) as vg:
        args = await _args(vg, case)
        scope = anyio.CancelScope()

        async def run() -> None:
            with scope:
                await _call(vg, case.tool, args, [])

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await hold.reached.wait()  # one file written, the rest to come
            scope.cancel()
            hold.release.set()
        # Whether the cancellation still reaches the call after the writes (and ends it) or the
        # call returns first, the hold inside the shield never saw it and every write happened.
        assert scope.cancel_called and not hold.cancelled.is_set()
        assert case.applied(vg.root)
        if case.tool != "bulk_create_notes":
            index = await index_state(vg.app.db)
            expected = "Other.md" if case.tool == "rewrite_links" else "Centre.md"
            targets = {target for path, _, target, _ in index[1] if path.startswith("Notes/")}
            tags = {tag for path, tag in index[2] if path.startswith("Notes/")}
            assert (tags == {"subject"}) if case.tool == "rename_tag" else (targets == {expected})


@pytest.mark.covers("rename_note", "failure")
async def test_a_write_that_fails_mid_way_is_undone(tmp_path: Path) -> None:
    """A note edited behind the server's back after the first file was written: `conflict`,
    and every file already written or moved is put back."""
    edited = "edited elsewhere [[Hub]]\n"

    class EditBehindTheBack:
        async def __call__(self, label: str, phase: str, done: int, total: int, /) -> None:
            if phase == "commit" and done == 1:
                (vg.root / "Notes/n199.md").write_text(edited)

    async with hub(tmp_path, EditBehindTheBack()) as vg:
        before = vault_bytes(vg.root)
        error = await vg.err("rename_note", "conflict", path="Hub", new_path="Centre")
        assert error["details"]["path"] == "Notes/n199.md"
        after = vault_bytes(vg.root)
        assert after.pop("Notes/n199.md") == edited.encode()
        before.pop("Notes/n199.md")
        assert after == before


@pytest.mark.covers("reindex", "success")
async def test_a_cancelled_reindex_goes_on_in_the_background(tmp_path: Path) -> None:
    """The caller stops waiting; the job finishes, the index is complete, and the cancelled
    call's reporter hears nothing more."""
    async with hub(tmp_path) as vg:
        seen: Progress = []
        with anyio.CancelScope() as scope:
            await _call(vg, "reindex", {"mode": "full"}, seen, on_report=scope.cancel)
        assert scope.cancelled_caught and len(seen) == 1
        # A second call joins the running job (or finds it done) and waits for it.
        joined = await vg.ok("reindex", mode="full")
        assert joined["job"]["status"] == "done"
        status = await vg.ok("index_status")
        assert status["notes"] == HUB_NOTES + 2
        assert len(seen) == 1


async def test_a_cancelled_cache_reset_still_rebuilds_the_index(tmp_path: Path) -> None:
    """Cancelling reset_vault_cache after its first progress notification must not leave the
    index dropped: the rebuild goes on, and a reindex call joins it (or finds it done)."""
    async with hub(tmp_path) as vg:
        index = await index_state(vg.app.db)
        args = {"elicit_token": await vg.token_for("reset_vault_cache")}
        seen: Progress = []
        with anyio.CancelScope() as scope:
            await _call(vg, "reset_vault_cache", args, seen, on_report=scope.cancel)
        assert scope.cancelled_caught and len(seen) == 1 and "reindexed" in (seen[0][2] or "")
        await vg.ok("reindex", mode="sync")
        jobs = await vg.app.db.fetchall("SELECT kind, status, error FROM jobs ORDER BY created_at")
        assert ("full", "done", None) in [tuple(j) for j in jobs] and all(j[1] == "done" for j in jobs), jobs
        assert (await vg.ok("index_status"))["notes"] == HUB_NOTES + 2
        assert await index_state(vg.app.db) == index


async def test_a_cancelled_call_frees_its_idempotency_key(tmp_path: Path) -> None:
    """Cancelled before it wrote anything, the call's key is released at once: the retry runs."""
    async with hub(tmp_path, Hold("prepare", 1)) as vg:
        args = {**CASES[0].args, "idempotency_key": "rename-hub-1"}
        with anyio.CancelScope() as scope:
            await _call(vg, "rename_note", args, [], on_report=scope.cancel)
        assert scope.cancelled_caught
        again = await vg.app.dispatcher.call("rename_note", args, principal=vg.principal)
        assert not again.is_error, again.structured
        assert _renamed(vg.root)
