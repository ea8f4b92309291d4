"""An undo cut short by a crash is rolled back at the next start: the run it was undoing is whole
again and still undoable (`service.plans.recovery`, newest first).

The crash is simulated in process: an undo run is opened and one of its restores made under its
journal recorder, then the server stops without closing the run, which the next start finds
`running` and so `interrupted` (what a SIGKILL leaves; tests/tools/notes/test_bulk_killed.py
kills a real process for the bulk case)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.plans.journal import Recorder
from service.vault import restore
from service.vault.files import etag_of
from service.vault.journal import RECORDER
from tests.conftest import started

NOTES = [{"path": f"Batch/n{i}.md", "content": f"# n{i}\n\nbatchword{i}\n"} for i in range(3)]


async def test_an_undo_killed_midway_is_rolled_back_and_the_run_stays_undoable(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root) as vg:
        await vg.ok("bulk_create_notes", notes=NOTES)
        journal = vg.app.services.plans.journal
        [bulk] = await vg.app.state.fetchall("SELECT id FROM plan_runs WHERE kind = 'bulk'")
        undo_id = await journal.open_run(
            "main", "someone", kind="undo", goal="undo cut short", plan_hash="", total=1, undoes=str(bulk[0])
        )
        # A recorder this process does not track (`journal.recorder` would register it as an open
        # run, which the stop waits for): its spool file is all the crash leaves.
        recorder = Recorder(journal, undo_id)
        token = RECORDER.set(recorder)
        try:  # the first restore of the undo: n2 removed, then the crash
            files = vg.app.vaults["main"].files
            await restore.restore_file(files, "Batch/n2.md", None, etag_of(NOTES[2]["content"].encode()))
        finally:
            RECORDER.reset(token)
            recorder.close()  # its file descriptor, as the dying process's would be
        assert not (root / "Batch/n2.md").exists()
    async with started(root) as vg:
        assert all((root / n["path"]).read_text(encoding="utf-8") == n["content"] for n in NOTES)
        runs = {
            str(r[0]): (str(r[1]), r[2])
            for r in await vg.app.state.fetchall("SELECT id, status, undone_by FROM plan_runs")
        }
        assert runs[str(bulk[0])] == ("done", None)  # whole again, not undone
        assert runs[undo_id][0] == "interrupted" and runs[undo_id][1] is not None  # rolled back
        await vg.indexed()
        found = await vg.ok("search_text", query="batchword2")
        assert [i["path"] for i in found["items"]] == ["Batch/n2.md"]
        await vg.confirmed("undo_last_plan")  # the bulk call is still the caller's to undo
        assert not any((root / n["path"]).exists() for n in NOTES)
