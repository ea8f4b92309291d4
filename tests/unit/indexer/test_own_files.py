"""OwnFiles: the state of files vaultgate queued index updates for, and whether they still have it."""

from __future__ import annotations

import os
from pathlib import Path

from service.indexer.own_files import OwnFiles


def test_a_file_is_ours_until_it_changes_or_goes(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("one")
    own = OwnFiles(tmp_path)
    assert not own.unchanged("a.md")  # never queued by us
    own.queued(["a.md"])
    assert own.unchanged("a.md")
    os.utime(tmp_path / "a.md", ns=(1_000_000_000, 1_000_000_000))
    assert not own.unchanged("a.md")  # touched by someone else
    own.queued(["a.md"])
    (tmp_path / "a.md").write_text("other size")
    assert not own.unchanged("a.md")
    own.queued(["a.md"])
    replaced = tmp_path / "tmp"
    replaced.write_text("other size")  # same size, another file renamed over it
    os.utime(replaced, ns=(os.stat(tmp_path / "a.md").st_mtime_ns,) * 2)
    os.replace(replaced, tmp_path / "a.md")
    assert not own.unchanged("a.md")
    (tmp_path / "a.md").unlink()
    assert not own.unchanged("a.md")


def test_a_missing_file_is_not_recorded_and_the_oldest_are_forgotten(tmp_path: Path) -> None:
    own = OwnFiles(tmp_path, limit=2)
    own.queued(["gone.md"])
    assert len(own) == 0
    for name in ("1.md", "2.md", "3.md"):
        (tmp_path / name).write_text(name)
    own.queued(["1.md", "2.md"])
    own.queued(["1.md"])  # used again: now the newest
    own.queued(["3.md"])
    assert len(own) == 2 and own.unchanged("1.md") and own.unchanged("3.md") and not own.unchanged("2.md")
