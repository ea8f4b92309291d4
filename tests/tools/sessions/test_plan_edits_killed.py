"""A plan whose edits (a patch, a property set, a find and replace) add links to the note it then
renames, its server process killed (SIGKILL) in the middle: undo_last_plan on a new server puts
every byte back. The process (tests/plan_edits_killed.py) is held halfway through the rename's
commit (the renamed note and one rewrite written, the others not), or killed in the write of one
file right after the journal recorded its prior bytes: the patched hub, the property's note (the
set_properties call), a note the find and replace writes."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import snapshot, started
from tests.killed import kill_when_held, run_until_killed
from tests.plan_vault import plan_files

MODULE = "tests.plan_edits_killed"


async def _undone(root: Path, before: dict[str, bytes]) -> None:
    """A new server finds the run interrupted; undo restores every file (a killed write's temp
    file aside: a start after the kill sweeps it, tests/tools/sessions/test_plan_killed.py)."""
    async with started(root) as vg:
        [row] = await vg.app.state.fetchall("SELECT status FROM plan_runs")
        assert row[0] == "interrupted"
        out = await vg.confirmed("undo_last_plan")
        assert not out["conflicts"], out
    after = {rel: data for rel, data in snapshot(root).items() if not rel.endswith(".vgtmp")}
    assert after == before


async def test_undo_after_a_kill_in_the_rename_that_follows_the_edits(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault(plan_files())
    before = snapshot(root)
    await kill_when_held(MODULE, root, tmp_path / "held")
    assert "first: [[Move/m0" in (root / "Hub.md").read_text()  # the patch ran (its link maybe rewritten)
    assert 'up: "[[Move/m0' in (root / "Old/o0.md").read_text()  # so did the property
    assert "see [[Move/m0" in (root / "Move/m1.md").read_text()  # and the replace
    assert (root / "Move/m0 renamed.md").is_file() and not (root / "K/never.md").exists()
    await _undone(root, before)


@pytest.mark.parametrize("rel", ["Hub.md", "Old/o0.md", "Move/m1.md"])
async def test_undo_after_a_kill_between_the_journal_and_an_edits_write(
    make_vault: Callable[..., Path], rel: str
) -> None:
    root = make_vault(plan_files())
    before = snapshot(root)
    killed = await run_until_killed(MODULE, str(root), str(root.parent / "unused"), "in-write", rel)
    assert killed == -signal.SIGKILL
    assert (root / rel).read_bytes() == before[rel]  # killed before its write
    assert (root / "Move/m0.md").is_file() and not (root / "Move/m0 renamed.md").exists()  # before the rename
    await _undone(root, before)
