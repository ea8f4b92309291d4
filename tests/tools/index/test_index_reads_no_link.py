"""The index never reads a note through a link, also one swapped in after the change was seen:
a folder replaced by a symlink to a folder outside the vault between a write (or a watcher event)
and the index update's read is not read through (`service.indexer.reading`, opened as the write
path opens files: `service.vault.dirfd`). Before, only the file itself was opened with
O_NOFOLLOW: the outside file's text was indexed under the vault path, and search_text showed it
(found by flipping a folder against append_note calls: 20 of 20 notes answered with the outside
text)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from service.indexer import scan
from service.indexer.issues import FileIssue
from service.indexer.reading import NoteInput
from tests.conftest import started


async def test_a_folder_swapped_for_a_link_before_the_index_reads_is_not_read_through(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Race/n.md": "# n\n\ninside\n", "Home.md": "# home\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "n.md").write_text("# n\n\nfarawayword\n", encoding="utf-8")
    read = scan.read_note_checked

    def swapped_first(at: Path, rel: str) -> NoteInput | FileIssue | None:
        if rel == "Race/n.md" and not (root / "Race").is_symlink():  # the swap lands just before the read
            os.rename(root / "Race", tmp_path / "Race.kept")
            os.symlink(outside, root / "Race")
        return read(at, rel)

    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        monkeypatch.setattr(scan, "read_note_checked", swapped_first)  # a write's update reads here
        await vg.ok("append_note", path="Race/n.md", content="more")
        await vg.settled()
        assert (root / "Race").is_symlink()  # the index update did read after the swap
        assert (await vg.ok("search_text", query="farawayword"))["items"] == []
    assert (outside / "n.md").read_text(encoding="utf-8") == "# n\n\nfarawayword\n"
