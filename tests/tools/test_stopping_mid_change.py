"""A server that begins to stop while a long change writes its files: the change stops at its
next file, takes back what it wrote and answers `server_stopping`; the stop waits for that
before it closes the journal and the databases.

A move's link rewrites are written `TOGETHER` at a time (`service.vault.commit.Together`): the stop
is seen before the next chunk, so the chunk under way ends first and is taken back with the rest.
Held after its second file, a rename has written the moved note and the first chunk's notes
(n000-n007, the plan's first eight), rewrite_links and rename_tag the first chunk, and
bulk_create_notes (one note at a time) two notes: exactly those are in the run's journal, each
written once and put back once, and no temp file is left.

Before, the stop closed the plan journal under the running commit: its next write failed, every
undo failed the same way (`internal_error` for the caller), and the vault stayed half changed
until the next start rolled the journal back. Each long tool runs on the 200-note hub vault of
tests/tools/test_long_changes.py, held inside its commit phase after its second file until the
stop has begun; the real signal path over HTTP is tests/e2e/test_stopped_mid_change_e2e.py.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from service.dispatch.context import ToolResult
from service.vault.commit import TOGETHER
from tests.conftest import started
from tests.long_changes import HUB_NOTES, Hold, index_state, vault_bytes
from tests.tools.test_long_changes import CASES, IDS, Case, _args, hub

CHUNK = [f"Notes/n{i:03}.md" for i in range(TOGETHER)]
WRITTEN_BEFORE_STOP = {  # the files each call wrote (and took back) when held after its second file
    "rename_note": ["Hub.md", "Centre.md", *CHUNK],  # the move (one action, two files), one chunk
    "move_note": ["Hub.md", "Centre.md", *CHUNK],
    "rewrite_links": CHUNK,
    "rename_tag": CHUNK,
    "bulk_create_notes": ["Bulk/b000.md", "Bulk/b001.md"],  # one at a time
}
DONE_BEFORE_STOP = {"rename_note": 1 + TOGETHER, "move_note": 1 + TOGETHER, "bulk_create_notes": 2}


def temps(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.vgtmp"))


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_a_stop_mid_write_rolls_the_change_back_and_says_so(tmp_path: Path, case: Case) -> None:
    hold = Hold("commit", 2, label=case.tool)
    async with hub(tmp_path, hold) as vg:
        args = await _args(vg, case)
        files, index = vault_bytes(vg.root), await index_state(vg.app.db)
        results: list[ToolResult] = []

        async def call() -> None:
            results.append(await vg.app.dispatcher.call(case.tool, args, principal=vg.principal))

        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            await hold.reached.wait()  # two files written, the rest to come
            tg.start_soon(vg.app.stop)
            with anyio.fail_after(10):
                while not vg.app.plans.journal.stopping:  # noqa: ASYNC110 - set by app.stop
                    await anyio.sleep(0.01)
            hold.release.set()
        (result,) = results
        assert result.is_error, result.structured
        error = result.structured["error"]
        assert error["code"] == "server_stopping" and error["retryable"] is True
        done = DONE_BEFORE_STOP.get(case.tool, TOGETHER)
        assert error["details"] == {"done_before_stop": done, "total": error["details"]["total"]}
        assert vault_bytes(vg.root) == files and temps(vg.root) == []
    async with started(vg.root, notes={"bulk_confirm_above": 500}) as again:
        # The run was closed while the journal was open: nothing for the next start to roll back.
        runs = await again.app.state.fetchall("SELECT kind, status FROM plan_runs ORDER BY rowid")
        assert [tuple(r) for r in runs] == [("bulk", "failed")]
        rows = await again.app.state.fetchall("SELECT path FROM plan_journal WHERE kind = 'file' ORDER BY seq")
        paths, written = [r[0] for r in rows], WRITTEN_BEFORE_STOP[case.tool]
        half = len(paths) // 2  # what the call wrote, then what its rollback wrote back
        assert sorted(paths[:half]) == sorted(paths[half:]) == sorted(written), paths
        assert temps(vg.root) == []
        assert vault_bytes(vg.root) == files
        await again.indexed()
        assert await index_state(again.app.db) == index
        done = await again.app.dispatcher.call(case.tool, await _args(again, case), principal=again.principal)
        assert not done.is_error, done.structured
        assert case.applied(vg.root)


async def test_a_change_asked_after_the_stop_began_writes_nothing(tmp_path: Path) -> None:
    async with hub(tmp_path) as vg:
        files = vault_bytes(vg.root)
        vg.app.plans.stopping()
        error = await vg.err("rename_note", "server_stopping", path="Hub", new_path="Centre")
        assert error["details"] == {"done_before_stop": 0, "total": HUB_NOTES + 1}
        assert vault_bytes(vg.root) == files
