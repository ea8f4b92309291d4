"""Folder listings from per-folder snapshots (`service.vault.listings`): the same listing as a
walk, and a folder is read again exactly when its mtime says it may have changed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from service.vault import listings
from service.vault.listings import FolderListings, path_key
from service.vault.paths import VaultPaths
from tests.conftest import Harness

SETTLED_NS = time.time_ns() - 60 * 1_000_000_000 + 123_456  # a minute ago, not on a whole second


def vault(tmp_path: Path) -> tuple[VaultPaths, Path]:
    root = tmp_path / "v"
    files = [
        "Top.md", "b.md", "B.md", "a.png", "Projects/Plan.md", "Projects/notes/Idea.md", "Projects/Notes/x.md",
        "projects-2/z.md", "Deep/er/and/deeper/n.md", ".obsidian/app.json", "Projects/.hidden.md", ".trash/old.md",
    ]  # fmt: skip
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)
    settle(root)
    return VaultPaths(root), root


def settle(root: Path, ns: int = SETTLED_NS) -> None:
    """Every folder's mtime set well before any read (a snapshot taken now is then reusable)."""
    for folder, _, _ in os.walk(root):
        os.utime(folder, ns=(ns, ns))


def walked(paths: VaultPaths, rel: str, *, recursive: bool, attachments: bool) -> list[str]:
    """The listing as `list_notes` makes it from a walk: sorted by lower-case path, then path."""
    from service.vault.events import ChangeBus
    from service.vault.files import VaultFiles

    files = VaultFiles(paths, ChangeBus(), max_concurrent=1, trash_folder=".trash")
    found = [
        r
        for r, entry in files.walk(paths.resolve(rel, allow_root=True), recursive=recursive)
        if not entry.is_dir() and (attachments or r.lower().endswith(".md"))
    ]
    return sorted(found, key=path_key)


@pytest.mark.parametrize("recursive", [True, False])
@pytest.mark.parametrize("attachments", [True, False])
@pytest.mark.parametrize("folder", ["", "Projects"])
def test_a_listing_is_the_walks_in_every_page(tmp_path: Path, folder: str, recursive: bool, attachments: bool) -> None:
    paths, _ = vault(tmp_path)
    found = FolderListings(paths).listing(
        paths.resolve(folder, allow_root=True), recursive=recursive, attachments=attachments
    )
    assert found is not None
    expected = walked(paths, folder, recursive=recursive, attachments=attachments)
    assert found.total == len(expected)
    assert found.page(None, 100) == expected
    for descending in (False, True):
        paged: list[str] = []
        while page := found.page(path_key(paged[-1]) if paged else None, 2, descending=descending):
            paged += page
        assert paged == sorted(expected, key=path_key, reverse=descending)


def test_an_unchanged_folder_is_not_read_again(tmp_path: Path) -> None:
    paths, _ = vault(tmp_path)
    cache = FolderListings(paths)
    cache.listing(paths.resolve("", allow_root=True), recursive=True, attachments=False)
    first = cache.reads
    again = cache.listing(paths.resolve("", allow_root=True), recursive=True, attachments=False)
    assert cache.reads == first and again is not None and again.total == 8


def test_a_change_is_seen_and_only_its_folder_is_read_again(tmp_path: Path) -> None:
    paths, root = vault(tmp_path)
    cache = FolderListings(paths)
    top = paths.resolve("", allow_root=True)
    cache.listing(top, recursive=True, attachments=False)
    reads = cache.reads
    (root / "Projects/notes/New.md").write_text("new")  # the folder's mtime moves to now
    (root / "Deep/er/and/deeper/n.md").rename(root / "Deep/er/and/deeper/m.md")
    (root / "b.md").unlink()
    found = cache.listing(top, recursive=True, attachments=False)
    assert found is not None and cache.reads == reads + 3
    assert found.page(None, 100) == walked(paths, "", recursive=True, attachments=False)
    assert "Projects/notes/New.md" in found.page(None, 100) and "b.md" not in found.page(None, 100)


def test_a_snapshot_taken_within_the_margin_of_its_mtime_is_read_again(tmp_path: Path) -> None:
    """A change in the same timestamp tick as the read would leave the mtime as it was: such a
    snapshot is never reused."""
    paths, root = vault(tmp_path)
    now = time.time_ns() + 1_000_000  # just after the read begins (the kernel's clock is coarse)
    os.utime(root / "Projects", ns=(now, now))
    cache = FolderListings(paths)
    folder = paths.resolve("Projects", allow_root=True)
    cache.listing(folder, recursive=False, attachments=False)
    cache.listing(folder, recursive=False, attachments=False)
    assert cache.reads == 2


@pytest.mark.parametrize(("age_s", "reused"), [(2, False), (5, True)])
def test_a_whole_second_mtime_gets_the_coarse_margin(tmp_path: Path, age_s: int, reused: bool) -> None:
    """FAT keeps 2 s and some network file systems 1 s: such an mtime is trusted only 3 s on."""
    paths, root = vault(tmp_path)
    whole = (time.time_ns() // 1_000_000_000 - age_s) * 1_000_000_000
    os.utime(root / "Projects", ns=(whole, whole))
    cache = FolderListings(paths)
    folder = paths.resolve("Projects", allow_root=True)
    cache.listing(folder, recursive=False, attachments=False)
    cache.listing(folder, recursive=False, attachments=False)
    assert cache.reads == (1 if reused else 2)


def test_a_symlink_on_the_way_is_left_to_the_walk(tmp_path: Path) -> None:
    paths, root = vault(tmp_path)
    (root / "Projects" / "Link.md").symlink_to(root / "Top.md")
    settle(root)
    cache = FolderListings(paths)
    assert cache.listing(paths.resolve("", allow_root=True), recursive=True, attachments=False) is None
    assert cache.listing(paths.resolve("Deep", allow_root=True), recursive=True, attachments=False) is not None


def test_past_the_name_cap_the_snapshots_are_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths, _ = vault(tmp_path)
    monkeypatch.setattr(listings, "MAX_NAMES", 4)
    cache = FolderListings(paths)
    top = paths.resolve("", allow_root=True)
    found = cache.listing(top, recursive=True, attachments=True)
    assert found is not None and found.total == 9
    assert sum(len(s.files) for s in cache._snaps.values()) <= 4


@pytest.mark.covers("list_notes", "success")
async def test_list_notes_sees_files_made_and_removed_behind_its_back(vg: Harness) -> None:
    """Through the dispatch chain: an editor outside vaultgate adds, renames and removes files in
    folders listed before, and the next listing is what is on disk."""
    (vg.root / "Many").mkdir()
    for i in range(30):
        (vg.root / "Many" / f"n{i:02}.md").write_text("x")
    settle(vg.root)
    first = await vg.ok("list_notes", folder="Many", limit=5)
    assert first["total"] == 30 and [i["path"] for i in first["items"]][0] == "Many/n00.md"
    (vg.root / "Many" / "n00.md").rename(vg.root / "Many" / "zz.md")
    (vg.root / "Many" / "a.md").write_text("a")
    (vg.root / "Many" / "n01.md").unlink()
    after = await vg.ok("list_notes", folder="Many", limit=3)
    assert after["total"] == 30 and [i["path"] for i in after["items"]] == ["Many/a.md", "Many/n02.md", "Many/n03.md"]
    tail = await vg.ok("list_notes", folder="Many", limit=2, order="desc")
    assert [i["path"] for i in tail["items"]] == ["Many/zz.md", "Many/n29.md"]
    assert next(iter(vg.app.vaults.values())).files.listings.reads >= 2


def test_a_folder_gone_is_forgotten_with_what_was_below_it(tmp_path: Path) -> None:
    paths, root = vault(tmp_path)
    cache = FolderListings(paths)
    top = paths.resolve("", allow_root=True)
    cache.listing(top, recursive=True, attachments=True)
    assert {"Deep", "Deep/er", "Deep/er/and", "Deep/er/and/deeper"} <= set(cache._snaps)
    (root / "Deep/er/and/deeper/n.md").unlink()
    for rel in ("Deep/er/and/deeper", "Deep/er/and", "Deep/er", "Deep"):
        (root / rel).rmdir()
    found = cache.listing(top, recursive=True, attachments=True)
    assert found is not None and "Deep/er/and/deeper/n.md" not in found.page(None, 100)
    assert not any(key.startswith("Deep") for key in cache._snaps)
    assert cache._names == sum(len(s.files) for s in cache._snaps.values())
