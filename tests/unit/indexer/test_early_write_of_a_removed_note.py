"""A note written through vaultgate during a restart's reconcile, at a path that reconcile found
gone from disk, stays in the index.

557955df applies such a write between the load's batches (`service/indexer/early.py`); the
reconcile's `finish` then deleted the rows of every path its comparison found gone, the early
write's among them (before 557955df the write was applied after `finish`). Found reviewing
557955df: a note deleted while the server was down (Obsidian, a sync) and written again by an
agent while the restart re-reads changed notes was on disk, partial answers found it, and once
the index was ready search_text, aliases and backlinks did not, until the rescan that follows the
watcher's start (seconds at 100k notes) or, without a watcher, some later edit of it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started
from tests.first_index_gate import FirstIndexGate, vault_files

GONE = "---\naliases: [Back Again]\n---\n# Gone\n\nqzxwv came back, see [[Target]]\n"


@pytest.mark.parametrize("bulk", [True, False], ids=["bulk-load", "small-load"])
async def test_a_removed_note_written_again_during_the_reconcile_stays_indexed(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, bulk: bool
) -> None:
    root = make_vault({**vault_files(), "Gone.md": "# Gone\n\nold text\n"})
    async with started(root) as vg:
        await vg.indexed()
    (root / "Gone.md").unlink()  # deleted while the server is down
    for note in sorted(root.glob("Notes/*.md")):  # and the notes changed: the restart re-reads them
        note.write_text(note.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
    gate = FirstIndexGate(monkeypatch, at=3, bulk=bulk)
    async with started(root, index={"watch": False}) as vg:  # no rescan after ready to mend it
        try:
            await gate.wait_held()
            assert not vg.indexer().ready
            await vg.ok("create_note", path="Gone", content=GONE)
        finally:
            gate.release()
        await vg.indexed()
        assert vg.indexer()._early.rounds == 1  # the premise: applied between the load's batches
        await vg.settled()
        assert (root / "Gone.md").read_text(encoding="utf-8") == GONE
        found = await vg.ok("search_text", query="qzxwv")
        assert [i["path"] for i in found["items"]] == ["Gone.md"]
        assert (await vg.ok("read_note", path="Back Again"))["path"] == "Gone.md"
        back = await vg.ok("get_backlinks", path="Target")
        assert "Gone.md" in {i["path"] for i in back["items"]}
