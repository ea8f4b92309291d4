"""A note read in one `openat2` call (`service.vault.openat2`) answers as the folder walk does.

Where the opener is armed (Linux with `openat2`), `dirfd.read_file` and `VaultFiles.read` open a
regular file in one call that refuses a link anywhere on the way; everything else — a folder or
the file itself a symlink, a folder, a FIFO, a missing file — falls back to the walk, so the
answers are the walk's. Through the chain, a note changed on disk between two reads is read
fresh, and a read does not walk the folders at all.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from service.errors import PathInvalid
from service.vault import dirfd, openat2
from service.vault.paths import VaultPaths
from tests.conftest import started


@pytest.fixture
def armed(tmp_path: Path) -> Iterator[None]:
    openat2.arm(os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, str(tmp_path))
    if openat2.opener() is None:
        pytest.skip("openat2 is not available here")
    yield


@pytest.fixture
def vault(make_vault: Callable[..., Path], tmp_path: Path) -> Path:
    root = make_vault({"A/B/Note.md": "# Note\n\nbody\n", "Top.md": "top\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Secret.md").write_text("secret\n")
    (root / "Out").symlink_to(outside, target_is_directory=True)
    (root / "Link.md").symlink_to(outside / "Secret.md")
    return Path(os.path.realpath(root))


def _walked(root: Path, rel: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """What the walk alone answers for `rel` (the opener switched off)."""
    with monkeypatch.context() as m:
        m.setattr(openat2, "_opener", None)
        try:
            data, st = dirfd.read_file(root, rel)
        except (OSError, PathInvalid) as exc:
            return type(exc), getattr(exc, "details", None)
        return data, st.st_ino


def _answer(root: Path, rel: str) -> Any:
    try:
        data, st = dirfd.read_file(root, rel)
    except (OSError, PathInvalid) as exc:
        return type(exc), getattr(exc, "details", None)
    return data, st.st_ino


@pytest.mark.parametrize("rel", ["A/B/Note.md", "Top.md", "Out/Secret.md", "Link.md", "A", "A/Missing.md", "Top.md/x"])
def test_every_path_answers_as_the_walk_does(
    armed: None, vault: Path, rel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _answer(vault, rel) == _walked(vault, rel, monkeypatch)


def test_a_link_on_the_way_or_as_the_file_is_never_opened_by_the_single_call(armed: None, vault: Path) -> None:
    assert dirfd.read_plain(vault, "Out/Secret.md") is None
    assert dirfd.read_plain(vault, "Link.md") is None
    with pytest.raises(PathInvalid) as caught:
        dirfd.read_file(vault, "Out/Secret.md")
    assert caught.value.details["reason"] == "symlink on the way"


def test_a_fifo_is_not_read_and_does_not_block(armed: None, vault: Path) -> None:
    os.mkfifo(vault / "Pipe.md")
    assert dirfd.read_plain(vault, "Pipe.md") is None
    with pytest.raises(PathInvalid) as caught:
        dirfd.read_file(vault, "Pipe.md")
    assert caught.value.details["reason"] == "special file"


def test_a_regular_file_is_opened_once_without_a_walk(
    armed: None, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_walk(*args: object, **kwargs: object) -> None:
        raise AssertionError("walked")

    monkeypatch.setattr(dirfd, "parent_of", no_walk)
    data, st = dirfd.read_file(vault, "A/B/Note.md")
    assert data == b"# Note\n\nbody\n" and st.st_size == len(data)


async def test_read_note_reads_a_note_changed_on_disk_without_walking_the_folders(
    armed: None, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(vault) as vg:
        first = await vg.ok("read_note", path="A/B/Note.md")
        walked = dirfd.parent_of
        monkeypatch.setattr(dirfd, "parent_of", lambda *a, **k: (_ for _ in ()).throw(AssertionError("walked")))
        note = vault / "A/B/Note.md"
        note.write_text("# Note\n\nchanged on disk, same size?\n")
        again = await vg.ok("read_note", path="A/B/Note.md")
        assert again["content"] == "# Note\n\nchanged on disk, same size?\n"
        assert again["etag"] != first["etag"]
        st = os.stat(note)
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size and mtime, other bytes
        note.write_bytes(b"# Note\n\nchanged on disk, same size!\n")
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))
        third = await vg.ok("read_note", path="A/B/Note.md")
        assert third["content"].endswith("same size!\n") and third["etag"] != again["etag"]
        monkeypatch.setattr(dirfd, "parent_of", walked)
        await vg.err("read_note", "path_invalid", path="Out/Secret.md")


@pytest.mark.parametrize(
    "rel", ["A/B/Note.md", "A/B", "Out", "Out/Secret.md", "Link.md", "A/Missing.md", "New/Deeper/x.md", "Top.md/x"]
)
def test_a_path_is_plain_below_the_root_as_the_lstat_walk_says(
    armed: None, vault: Path, rel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = VaultPaths(vault)
    one_call = paths._plain_below_root(vault / rel)
    monkeypatch.setattr(openat2, "_path_opener", None)
    assert one_call == paths._plain_below_root(vault / rel)


def test_a_file_grown_since_its_fstat_is_read_to_its_end(
    armed: None, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = b"x" * 200_000
    (vault / "Big.md").write_bytes(body)
    real_fstat = os.fstat

    def smaller(fd: int) -> os.stat_result:  # as if the file grew after the fstat
        st = real_fstat(fd)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid, 10, *st[7:10]))

    monkeypatch.setattr(dirfd.os, "fstat", smaller)
    got = dirfd.read_plain(vault, "Big.md")
    assert got is not None and got[0] == body


def test_a_nul_in_a_path_is_refused_as_by_the_walk(armed: None, vault: Path) -> None:
    """ctypes passes bytes up to their first NUL: such a path never takes the one-call way."""
    assert dirfd.read_plain(vault, "Top.md\x00/x") is None
    with pytest.raises(ValueError):
        dirfd.read_file(vault, "Top.md\x00/x")
    with pytest.raises(ValueError):
        VaultPaths(vault)._plain_below_root(vault / "Top.md\x00x")
