"""The view a polling look keeps between looks (`service.indexer.look`): it only says where to
look, and never hides a change that comparing every file with the index would find — after
edits that keep a file's size, files made, deleted and moved with their folder, our own writes,
a change the watcher did not apply, a reconcile (one that failed half-way too), and a look that
a reconcile began beside. The oracle is what a look was before the view: the vault's scan
compared with every row of the index and the known files."""

from __future__ import annotations

import asyncio
import errno
import os
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from service.indexer import look, reconcile
from service.indexer.reconcile import compare, drift
from service.indexer.runner import VaultIndexer
from service.indexer.scan import indexed, scan
from service.vault.paths import VaultPaths
from tests.conftest import started

# A look only when a test asks for one: the poller's first look comes before the index is ready
# (it finds nothing, keeps nothing) and the next an hour later.
QUIET = {"watch_mode": "poll", "watch_poll_s": 3600.0}


def _vault(root: Path) -> Path:
    (root / "Notes" / "Deep").mkdir(parents=True)
    (root / "Notes" / "Kept.md").write_text("# Kept\n\nplainword here\n", encoding="utf-8")
    (root / "Notes" / "Same.md").write_text("# Same\n\nfour five six\n", encoding="utf-8")
    (root / "Notes" / "Deep" / "Low.md").write_text("# Low\n\n![[pic.png]]\n", encoding="utf-8")
    (root / "Notes" / "Deep" / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "Top.md").write_text("# Top\n\n[[Kept]]\n", encoding="utf-8")
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "app.json").write_text("{}", encoding="utf-8")
    return root


async def _oracle(ix: VaultIndexer) -> list[str]:
    """What a look answered before the view: every file compared with the index."""
    notes, files = await asyncio.to_thread(scan, ix.vault.paths)
    changed, removed, _, _ = await ix.db.run_scan(partial(compare, vault_id=ix.vault.id, disk=notes, full=False))
    known = ix._files
    others = [f for f in files if f not in known and not indexed(f)]
    others += [f for f in known if f not in files and not indexed(f)]
    return sorted(changed + removed + others)


async def _same(ix: VaultIndexer) -> list[str]:
    """A look, checked against the oracle."""
    found, _ = await drift(ix)
    assert sorted(found) == await _oracle(ix)
    return sorted(found)


def _same_size_edit(path: Path, text: str, *, keep_mtime: bool = False) -> None:
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text, encoding="utf-8")
    if keep_mtime:  # a file system whose mtime step is coarser than the two edits
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    else:  # a mtime step of a millisecond (the index keeps float seconds: ~0.2 us apart at best)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))


def _started(tmp_path: Path) -> Any:
    return started(_vault(tmp_path / "v"), index=QUIET)


def test_the_survey_takes_the_files_the_scan_takes(tmp_path: Path) -> None:
    """Dot names, temp files, symlinks, special files, hidden folders and names that are not
    UTF-8 are left out as the start's scan leaves them out; NFD names come out NFC."""
    root = _vault(tmp_path / "v")
    (root / "Notes" / ".hidden.md").write_text("x", encoding="utf-8")
    (root / "Notes" / "Half.md.vgtmp").write_text("x", encoding="utf-8")
    (root / "Notes" / "Linked.md").symlink_to(root / "Top.md")
    (root / "Linked folder").symlink_to(root / "Notes", target_is_directory=True)
    os.mkfifo(root / "Notes" / "pipe.md")
    (root / "Cafe\u0301.md").write_text("nfd", encoding="utf-8")
    os.mkdir(os.path.join(os.fsencode(root), b"bad\xff"))
    (Path(os.fsdecode(os.path.join(os.fsencode(root), b"bad\xff"))) / "In.md").write_text("x", encoding="utf-8")
    with open(os.path.join(os.fsencode(root), b"Bad\xfe.md"), "w") as bad:
        bad.write("x")
    paths = VaultPaths(root)
    notes, files = scan(paths)
    found = {
        look.vault_path(folder, name): (mtime, size)
        for folder, (joined, mtimes, sizes) in look.survey(paths).items()
        for name, mtime, size in zip(joined.split("/") if joined else [], mtimes, sizes, strict=True)
    }
    assert set(found) == files and "Caf\u00e9.md" in files
    assert {p: (look.mtime_of(m), s) for p, (m, s) in found.items() if p in notes} == notes


def test_an_entry_gone_while_its_folder_is_listed_is_left_out_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the file system does not give an entry's type with its name, `is_dir` stats it: an
    entry gone meanwhile is left out, not its whole folder taken for one that cannot be listed."""
    root = _vault(tmp_path / "v")
    real_scandir = os.scandir

    class Entry:
        def __init__(self, entry: os.DirEntry[str]) -> None:
            self.entry, self.name = entry, entry.name

        def is_dir(self, *, follow_symlinks: bool = True) -> bool:
            if self.name == "Same.md":
                raise FileNotFoundError(2, "No such file or directory", self.name)
            return self.entry.is_dir(follow_symlinks=follow_symlinks)

        def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
            return self.entry.stat(follow_symlinks=follow_symlinks)

    class Listing:
        def __init__(self, path: Any) -> None:
            self.listing = real_scandir(path)

        def __enter__(self) -> Any:
            return (Entry(entry) for entry in self.listing)

        def __exit__(self, *exc: object) -> None:
            self.listing.close()

    monkeypatch.setattr(os, "scandir", Listing)
    unread: list[OSError] = []
    view = look.survey(VaultPaths(root), None, unread)
    assert unread == []
    assert sorted(view["Notes"][0].split("/")) == ["Kept.md"]


def test_moved_names_each_file_that_changed(tmp_path: Path) -> None:
    root = _vault(tmp_path / "v")
    paths = VaultPaths(root)
    before = look.survey(paths)
    _same_size_edit(root / "Notes" / "Same.md", "# Same\n\nfour FIVE six\n")
    (root / "Notes" / "Kept.md").write_text("longer now\n" * 3, encoding="utf-8")
    (root / "Top.md").unlink()
    (root / "Notes" / "Deep").rename(root / "Deeper")
    (root / "New").mkdir()
    (root / "New" / "Made.md").write_text("made\n", encoding="utf-8")
    after = look.survey(paths)
    changed = look.moved(before, after, ())
    assert {p for p, st in changed.items() if st is None} == {"Top.md", "Notes/Deep/Low.md", "Notes/Deep/pic.png"}
    assert {p for p, st in changed.items() if st is not None} == {
        "Notes/Same.md",
        "Notes/Kept.md",
        "Deeper/Low.md",
        "Deeper/pic.png",
        "New/Made.md",
    }
    assert look.moved(after, look.survey(paths), ()) == {}
    # A folder that could not be listed is kept as it was: nothing below it is gone.
    unlisted = {k: v for k, v in look.survey(paths).items() if k != "Deeper"}
    assert look.moved(after, unlisted, ("Deeper/",)) == {} and unlisted["Deeper"] == after["Deeper"]


async def test_a_look_finds_what_comparing_every_file_finds(tmp_path: Path) -> None:
    """Step by step, a look with the view kept answers what the comparison of every file with
    the index answers (`_same`), including the change no one applied yet, looked at again."""
    async with _started(tmp_path) as vg:
        await vg.indexed()
        ix = vg.indexer()
        root = vg.root
        assert await _same(ix) == []
        assert look.kept(ix).view is not None
        _same_size_edit(root / "Notes" / "Same.md", "# Same\n\nfour FIVE six\n")
        assert await _same(ix) == ["Notes/Same.md"]
        assert await _same(ix) == ["Notes/Same.md"]  # not applied: found again
        (root / "Notes" / "Deep").rename(root / "Deeper")
        (root / "Notes" / "New.md").write_text("new\n", encoding="utf-8")
        (root / "Notes" / "Deep2").mkdir()
        (root / "Notes" / "Deep2" / "doc.pdf").write_bytes(b"%PDF")
        expect = ["Deeper/Low.md", "Deeper/pic.png", "Notes/Deep/Low.md", "Notes/Deep/pic.png"]
        expect += ["Notes/Deep2/doc.pdf", "Notes/New.md", "Notes/Same.md"]
        assert await _same(ix) == sorted(expect)
        assert await _same(ix) == sorted(expect)
        watcher = ix._watcher
        assert watcher is not None
        await watcher.handle({(2, str(root / p)) for p in expect})  # applied as polling hands them over
        assert await _same(ix) == []
        # Our own writes: the index holds them as written, nothing differs.
        await vg.ok("create_note", path="Notes/Ours.md", content="ourword\n")
        await vg.ok("append_note", path="Notes/Kept.md", content="more of ours\n")
        await vg.settled()
        assert await _same(ix) == []
        # The index row changed by a reading only: an edit the watcher applies, then none.
        (root / "Top.md").write_text("# Top\n\nother text\n", encoding="utf-8")
        assert await _same(ix) == ["Top.md"]
        await watcher.handle({(2, str(root / "Top.md"))})
        assert await _same(ix) == []
        # Two edits within one mtime step at the same size: neither way sees the second.
        _same_size_edit(root / "Notes" / "New.md", "NEW\n", keep_mtime=True)
        assert await _same(ix) == []


async def test_a_reconcile_that_failed_half_way_leaves_no_view(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reconcile clears the content hash of the notes a changed Tasks setting reads again
    (`task_format.py`), and here fails before reading them: their files did not change, but
    they differ from the index now; a view kept from before would hide them."""
    async with _started(tmp_path) as vg:
        await vg.indexed()
        ix = vg.indexer()
        assert await _same(ix) == []

        async def cleared(ix: Any) -> None:
            def clear(conn: Any) -> None:
                conn.execute("UPDATE notes SET etag = '' WHERE path = 'Notes/Kept.md'")

            await ix.db.run_write(clear)

        def fails(*args: Any, **kwargs: Any) -> Any:
            raise OSError("the share went away")

        monkeypatch.setattr(reconcile, "follow_settings", cleared)
        monkeypatch.setattr(reconcile, "scan_with_paths", fails)
        with pytest.raises(OSError, match="went away"):
            await ix.reconcile()
        assert ix.state == "ready"
        assert await _same(ix) == ["Notes/Kept.md"]


async def test_a_look_a_reconcile_began_beside_keeps_no_view(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A look under way when a reconcile begins compared with rows the reconcile rewrites: what it
    saw is not kept, and the next look compares every file with the index."""
    async with _started(tmp_path) as vg:
        await vg.indexed()
        ix = vg.indexer()
        assert await _same(ix) == []
        real = look.survey

        def beside(*args: Any, **kwargs: Any) -> look.View:
            look.forget(ix)  # what a reconcile does when it begins
            return real(*args, **kwargs)

        monkeypatch.setattr(look, "survey", beside)
        assert await _same(ix) == []
        assert look.kept(ix).view is None
        monkeypatch.setattr(look, "survey", real)

        def moved_row(conn: Any) -> None:  # a row rewritten by that reconcile, its file not changed
            conn.execute("UPDATE notes SET size = size + 1 WHERE path = 'Notes/Kept.md'")

        await ix.db.run_write(moved_row)
        assert await _same(ix) == ["Notes/Kept.md"]


async def test_an_edit_during_a_reindex_is_found_by_the_next_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit made after a reindex scanned the vault is not in what it indexed; the look after
    it (a look waits for a reindex to end) finds it."""
    async with _started(tmp_path) as vg:
        await vg.indexed()
        ix = vg.indexer()
        assert await _same(ix) == []
        scanned, go = asyncio.Event(), asyncio.Event()
        real = reconcile.compare

        def held(*args: Any, **kwargs: Any) -> Any:
            loop.call_soon_threadsafe(scanned.set)
            asyncio.run_coroutine_threadsafe(go.wait(), loop).result(60)
            return real(*args, **kwargs)

        loop = asyncio.get_running_loop()
        monkeypatch.setattr(reconcile, "compare", held)
        reindex = asyncio.ensure_future(ix.reconcile())
        await asyncio.wait_for(scanned.wait(), 60)
        (vg.root / "Notes" / "Kept.md").write_text("# Kept\n\nduring the reindex\n", encoding="utf-8")
        looking = asyncio.ensure_future(drift(ix))
        go.set()
        await asyncio.wait_for(reindex, 60)
        assert (await asyncio.wait_for(looking, 60))[0] == ["Notes/Kept.md"]
        monkeypatch.setattr(reconcile, "compare", real)
        assert await _same(ix) == ["Notes/Kept.md"]


async def test_what_differs_in_a_folder_that_cannot_be_listed_is_told_once_it_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing below a folder a look cannot list is told (a share's stale handle must not empty
    the index), but what differed there, or went meanwhile, is not forgotten: told once the
    folder lists again, though the view kept its files as they were."""
    async with _started(tmp_path) as vg:
        await vg.indexed()
        ix = vg.indexer()
        root = vg.root
        assert await _same(ix) == []
        (root / "Notes" / "Kept.md").write_text("# Kept\n\nedited, not applied\n", encoding="utf-8")
        assert await _same(ix) == ["Notes/Kept.md"]
        real_scandir = os.scandir
        away = str(root / "Notes")

        def scandir(path: Any = ".") -> Any:
            if os.fspath(path) == away:
                raise OSError(errno.ESTALE, "Stale file handle", os.fspath(path))
            return real_scandir(path)

        monkeypatch.setattr(os, "scandir", scandir)
        (root / "Notes" / "Same.md").unlink()  # gone while its folder cannot be listed
        assert (await drift(ix))[0] == []
        assert (await drift(ix))[0] == []
        monkeypatch.setattr(os, "scandir", real_scandir)
        assert await _same(ix) == ["Notes/Kept.md", "Notes/Same.md"]
        # The first look after a reconcile, the folder away: its notes are not told gone either.
        look.forget(ix)
        monkeypatch.setattr(os, "scandir", scandir)
        (root / "Notes" / "Deep" / "Low.md").unlink()
        assert (await drift(ix))[0] == []
        monkeypatch.setattr(os, "scandir", real_scandir)
        assert await _same(ix) == ["Notes/Deep/Low.md", "Notes/Kept.md", "Notes/Same.md"]
