"""A move's journaled link rewrites read each rewritten note twice while they write it: once for
the compare with the etag the plan read, whose bytes are the ones the journal records (before,
a read for each), and once more right before the rename (an editor's save meanwhile is a
`conflict`, never written over). Through the full dispatch chain; counted per file."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from service.vault import dirfd
from service.vault.events import ChangeBus
from tests.conftest import started

NOTES = 6


def _count_reads(monkeypatch: pytest.MonkeyPatch, bus: ChangeBus) -> Counter[str]:
    """Reads of each file (whole or a chunk at a time) while `bus`'s next batch is open (the move's writes)."""
    reads: Counter[str] = Counter()
    writing = [False]
    read_file, scan_file, batch = dirfd.read_file, dirfd.scan_file, bus.batch

    def counted_read(root: Path, rel: str, *rest: Any) -> Any:
        reads[rel] += writing[0]
        return read_file(root, rel, *rest)

    def counted_scan(root: Path, rel: str, *rest: Any) -> Any:
        reads[rel] += writing[0]
        return scan_file(root, rel, *rest)

    @contextlib.asynccontextmanager
    async def counted_batch() -> AsyncIterator[None]:
        async with batch():
            writing[0] = True
            try:
                yield
            finally:
                writing[0] = False

    monkeypatch.setattr(dirfd, "read_file", counted_read)
    monkeypatch.setattr(dirfd, "scan_file", counted_scan)
    monkeypatch.setattr(bus, "batch", counted_batch)
    return reads


async def test_a_moves_rewrites_read_each_note_twice(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"Hub.md": "# Hub\n", **{f"Notes/n{i}.md": f"# n{i}\n\nSee [[Hub]].\n" for i in range(NOTES)}}
    async with started(make_vault(files), index={"watch": False}) as vg:
        await vg.indexed()
        reads = _count_reads(monkeypatch, vg.app.vaults["main"].bus)
        done = await vg.ok("rename_note", path="Hub.md", new_path="Hub2")
        assert done["notes_rewritten"] == NOTES
        rewritten = [f"Notes/n{i}.md" for i in range(NOTES)]
        assert {rel: reads[rel] for rel in rewritten} == dict.fromkeys(rewritten, 2)
        for rel in rewritten:
            assert (vg.root / rel).read_text(encoding="utf-8").endswith("See [[Hub2]].\n")


async def test_a_rewrite_of_a_note_edited_since_the_plan_is_refused_and_the_move_undone(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program saves a note after the move's plan read it: the compare made on the bytes
    the journal records refuses it (`conflict`), the move is taken back, the save is kept."""
    files = {"Hub.md": "# Hub\n", **{f"Notes/n{i}.md": f"# n{i}\n\nSee [[Hub]].\n" for i in range(NOTES)}}
    async with started(make_vault(files), index={"watch": False}) as vg:
        await vg.indexed()
        bus = vg.app.vaults["main"].bus
        batch = bus.batch
        edited = vg.root / "Notes" / "n4.md"

        @contextlib.asynccontextmanager
        async def saved_first() -> AsyncIterator[None]:
            edited.write_text("# n4\n\nSaved elsewhere. See [[Hub]].\n", encoding="utf-8")  # after the plan
            async with batch():
                yield

        monkeypatch.setattr(bus, "batch", saved_first)
        failed = await vg.call("rename_note", path="Hub.md", new_path="Hub2")
        assert failed.is_error and failed.structured is not None
        assert failed.structured["error"]["code"] == "conflict"
        assert edited.read_text(encoding="utf-8") == "# n4\n\nSaved elsewhere. See [[Hub]].\n"
        assert (vg.root / "Hub.md").exists() and not (vg.root / "Hub2.md").exists()
        for i in (0, 1, 2, 3, 5):
            assert (vg.root / f"Notes/n{i}.md").read_text(encoding="utf-8") == f"# n{i}\n\nSee [[Hub]].\n"
