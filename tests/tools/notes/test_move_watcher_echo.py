"""The watcher's report of a move of ours, after the index followed it, changes nothing.

A folder move publishes its own "moved" batch and the index follows it before the call returns;
the watcher then reports the old paths as deleted. Those paths were no longer in the index, yet
each such batch ran a write transaction re-resolving links from them and returned every one as
a deletion that really altered the index, published again on the bus (~10-200 ms a batch, M8
s74). Now a deletion of a path the index does not hold is dropped: no transaction, no link
re-resolved, nothing returned; one a queued round of our own writes will read is still applied
and told (that round reads the file, and only this batch tells the bus it went)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.indexer import rows
from service.vault.events import FileChange
from tests.conftest import started, write_files

NAMES = [f"N{i}.md" for i in range(6)]


def _vault(root: Path) -> None:
    files = {f"Projects/Alpha/{n}": f"# {n}\n\nSee [[Home]] and [[N0]].\n" for n in NAMES}
    files["Home.md"] = "[[Projects/Alpha/N1]] and [[N2]]\n"
    files["Projects/Alpha/pic.png"] = "png"
    write_files(root, files)


async def test_the_watchers_deletions_after_a_move_of_ours_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _vault(tmp_path)
    async with started(tmp_path, index={"watch": False}) as vg:
        await vg.indexed()
        out = await vg.confirmed("move_note", path="Projects/Alpha", new_path="Archive/")
        assert out["files_moved"] == len(NAMES) + 1
        await vg.settled()
        before = await vg.app.services.db.fetchall("SELECT id, path, etag FROM notes ORDER BY path")
        resolved: list[Any] = []
        real = rows.resolve_links
        monkeypatch.setattr(rows, "resolve_links", lambda *a, **k: resolved.append(a) or real(*a, **k))
        told: list[FileChange] = []

        async def record(changes: Any) -> None:
            told.extend(changes)

        vg.app.vaults["main"].bus.subscribe(record)
        old = [f"Projects/Alpha/{n}" for n in [*NAMES, "pic.png"]]
        echo = [FileChange("deleted", p, origin="external") for p in [*old, "Projects/Alpha", "Projects"]]
        assert await vg.indexer()._apply_external(echo) == []
        assert resolved == [] and told == []
        assert await vg.app.services.db.fetchall("SELECT id, path, etag FROM notes ORDER BY path") == before
        assert len((await vg.ok("get_backlinks", path="Home"))["items"]) == len(NAMES)

        # a note of the index deleted by another program is still applied and told
        (tmp_path / "Archive/Alpha/N3.md").unlink()
        gone = await vg.indexer()._apply_external([FileChange("deleted", "Archive/Alpha/N3.md", origin="external")])
        assert gone == [FileChange("deleted", "Archive/Alpha/N3.md", origin="external")] and resolved


async def test_a_deletion_a_queued_write_of_ours_will_read_is_still_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note we wrote whose index update is still queued, deleted by another program meanwhile:
    the index never held it, but the bus heard of it from our write; the watcher's deletion is
    applied and returned as before, so subscribers hear that it went."""
    _vault(tmp_path)
    async with started(tmp_path, index={"watch": False}) as vg:
        await vg.indexed()
        ix = vg.indexer()
        monkeypatch.setattr(ix, "_ours", lambda path: path == "Queued.md")
        deleted = [FileChange("deleted", p, origin="external") for p in ("Queued.md", "Never.md")]
        assert await ix.apply(deleted, only_if_changed=True) == deleted[:1]
