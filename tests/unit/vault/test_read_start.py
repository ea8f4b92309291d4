"""`VaultFiles.read_start` (what the prompts embed of a note) is the start of what `read` gives,
from any encoding, with the same answers for links, folders and missing files, and without
holding the rest of the note: before, summarize_note, daily_review and review_folder read and
decoded a whole note (100 MB for a 100 MB note) to keep its first 60,000 characters.

`VaultFiles.has_note` answers as `current_etag(vp) is not None` with nothing read: the existence
checks of the writing tools and the memory store read and hashed the whole note (on the event
loop, for most), and a write without an etag hashed the note it replaced to learn it was there."""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.errors import VaultgateError
from service.vault import dirfd, openat2
from service.vault.events import ChangeBus
from service.vault.files import VaultFiles
from service.vault.paths import VaultPaths
from tests.unit.vault.test_decode_start import CASES


@pytest.fixture(params=["one open", "walk"])
def files(request: pytest.FixtureRequest, make_vault: Callable[..., Path], tmp_path: Path) -> VaultFiles:
    root = make_vault({"A/B/Note.md": "# Note\n\nbody\n", "Top.md": "top\n", "Real.md": "through a link\n"})
    root = Path(os.path.realpath(root))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Secret.md").write_text("secret\n")
    (root / "Out").symlink_to(outside, target_is_directory=True)
    (root / "Link.md").symlink_to(outside / "Secret.md")
    (root / "Inner.md").symlink_to(root / "Real.md")
    for n, data in enumerate(CASES.values()):
        (root / f"enc{n}.md").write_bytes(data)
    vf = VaultFiles(VaultPaths(root), ChangeBus(), max_concurrent=4, trash_folder=".trash")
    if request.param == "walk":
        request.getfixturevalue("monkeypatch").setattr(openat2, "_opener", None)
    return vf


def _answer(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except VaultgateError as exc:
        return exc.code, exc.details


@pytest.mark.parametrize("chars", [1, 5, 40, 10_000])
def test_the_start_is_the_start_of_the_read(files: VaultFiles, chars: int) -> None:
    rels = ["A/B/Note.md", "Top.md", "Inner.md", *[f"enc{n}.md" for n in range(len(CASES))]]
    rels += ["Out/Secret.md", "Link.md", "A", "A/Missing.md", "Top.md/x"]
    for rel in rels:
        whole = _answer(lambda rel=rel: files.read(files.paths.resolve(rel)).content[:chars])
        assert _answer(lambda rel=rel: files.read_start(files.paths.resolve(rel), chars)) == whole, rel


def test_the_rest_of_a_long_note_is_never_held(files: VaultFiles) -> None:
    long = files.paths.root / "Long.md"
    long.write_bytes(("é and words " * 9).encode() + b"x" * 20_000_000)
    vp = files.paths.resolve("Long.md")
    tracemalloc.start()
    try:
        start = files.read_start(vp, 60_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert start == files.read(vp).content[:60_000]
    assert peak < 8_000_000, peak  # read whole and decoded, the 20 MB note took over 40 MB


def test_a_folder_swapped_for_a_link_out_of_the_vault_is_not_read(files: VaultFiles, tmp_path: Path) -> None:
    vp = files.paths.resolve("A/B/Note.md")
    root = files.paths.root
    os.rename(root / "A" / "B", root / "A" / "B-moved")
    (root / "A" / "B").symlink_to(tmp_path / "outside", target_is_directory=True)
    (tmp_path / "outside" / "Note.md").write_text("outside\n")
    with pytest.raises(VaultgateError) as caught:
        files.read_start(vp, 10)
    assert caught.value.code == "path_invalid"
    assert dirfd.read_plain(root, "A/B/Note.md") is None


PATHS = ["A/B/Note.md", "Top.md", "Inner.md", "Out/Secret.md", "Link.md", "A", "A/B", "A/Missing.md", "Top.md/x"]


def test_has_note_answers_as_current_etag_without_reading(files: VaultFiles, monkeypatch: pytest.MonkeyPatch) -> None:
    root = files.paths.root
    os.mkfifo(root / "Pipe.md")
    (root / "Dangling.md").symlink_to(root / "Gone.md")
    rels = [*PATHS, "Pipe.md", "Dangling.md", "enc0.md"]
    etags = {rel: _answer(lambda rel=rel: files.current_etag(files.paths.resolve(rel)) is not None) for rel in rels}
    assert etags["A/B/Note.md"] is True and etags["A/Missing.md"] is False and etags["A"] is False

    def no_read(*args: object) -> None:
        raise AssertionError("read")

    monkeypatch.setattr(dirfd, "read_file", no_read)
    monkeypatch.setattr(dirfd, "read_plain", no_read)
    for rel in rels:
        assert _answer(lambda rel=rel: files.has_note(files.paths.resolve(rel))) == etags[rel], rel


async def test_a_write_without_an_etag_hashes_nothing_it_replaces(
    files: VaultFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.vault import files as files_module

    hashed: list[int] = []
    real = files_module.etag_of
    monkeypatch.setattr(files_module, "etag_of", lambda data: hashed.append(len(data)) or real(data))
    vp = files.paths.resolve("Top.md")
    (files.paths.root / "Top.md").write_bytes(b"x" * 100_000)
    result = await files.write(vp, "new\n")
    assert hashed == [4], hashed  # the new bytes' etag only
    assert result.etag == real(b"new\n") and not result.created
    copied = await files.copy(files.paths.resolve("A/B/Note.md"), vp, overwrite=True, expected_etag=result.etag)
    assert copied.etag == real(b"# Note\n\nbody\n")
    with pytest.raises(VaultgateError) as caught:  # an etag for a note gone: note_not_found, as before
        await files.copy(files.paths.resolve("Top.md"), files.paths.resolve("New.md"), expected_etag=result.etag)
    assert caught.value.code == "note_not_found"
