"""A rename in letter case only on a case-blind disk (macOS APFS, Windows NTFS: the hosts most vaults
live on), where `Meeting Notes.md` reaches the note `meeting notes.md` itself: the applying call
renames the one file, as its preview said (review R3 s62 F2: it answered already_exists).

The disk is made case-blind at the file layer (`case_blind`): a name the folder does not hold is
looked up again in any letter case, by `os.stat`/`os.lstat` (so `Path.exists`, `samefile` and the
descriptor walk's `lstat_in` see the twin as the same file), and the no-replace rename falls back
to its look-then-rename, which then finds the note itself at the new name, as the disk would."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.vault import dirfd
from tests.case_rename_killed import case_blind as make_case_blind
from tests.conftest import e2e, started
from tests.e2e.calls import ok

VAULT = {"Inbox/meeting notes.md": "# m\n", "Home.md": "see [[Inbox/meeting notes]]\n"}


@pytest.fixture
def case_blind(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    make_case_blind(tmp_path, monkeypatch.setattr)  # undone after the test
    yield


def test_the_fixture_makes_the_disk_case_blind(case_blind: None, tmp_path: Path) -> None:
    (tmp_path / "meeting notes.md").write_text("x")
    assert (tmp_path / "Meeting Notes.md").exists()
    assert (tmp_path / "Meeting Notes.md").samefile(tmp_path / "meeting notes.md")
    assert not (tmp_path / "Other.md").exists()


@pytest.mark.parametrize(("tool", "new_path"), [("rename_note", "Meeting Notes"), ("move_note", "Inbox/Meeting Notes")])
async def test_a_case_only_rename_on_a_case_blind_disk_renames_the_one_file(
    case_blind: None, make_vault: Callable[..., Path], tool: str, new_path: str
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        preview = await vg.ok(tool, path="Inbox/meeting notes", new_path=new_path, dry_run=True)
        assert preview["moved"] == [{"old_path": "Inbox/meeting notes.md", "new_path": "Inbox/Meeting Notes.md"}]
        done = await vg.ok(tool, path="Inbox/meeting notes", new_path=new_path, dry_run=False)
        assert done["path"] == "Inbox/Meeting Notes.md"
        assert os.listdir(vg.root / "Inbox") == ["Meeting Notes.md"]  # no temporary name left
        assert vg.read("Inbox/Meeting Notes.md") == "# m\n"
        await vg.indexed()
        links = await vg.ok("get_backlinks", path="Inbox/Meeting Notes")
        assert [i["path"] for i in links["items"]] == ["Home.md"]


async def test_a_case_only_rename_on_a_case_blind_disk_over_http(
    case_blind: None, make_vault: Callable[..., Path]
) -> None:
    """The same through a real server and the SDK's Streamable HTTP client."""
    root = make_vault(VAULT)
    async with e2e(root, index={"watch": False}) as (url, h), Client(url, mode="auto") as c:
        await h.indexed()
        args = {"path": "Inbox/meeting notes", "new_path": "Meeting Notes"}
        assert (await ok(c, "rename_note", args, dry_run=True))["moved"][0]["new_path"] == "Inbox/Meeting Notes.md"
        assert (await ok(c, "rename_note", args, dry_run=False))["path"] == "Inbox/Meeting Notes.md"
        assert os.listdir(root / "Inbox") == ["Meeting Notes.md"] and h.read("Inbox/Meeting Notes.md") == "# m\n"


async def test_a_folder_renamed_in_letter_case_on_a_case_blind_disk(
    case_blind: None, make_vault: Callable[..., Path]
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await vg.ok("move_note", path="Inbox", new_path="inbox")
        assert "inbox" in os.listdir(vg.root) and "Inbox" not in os.listdir(vg.root)
        assert os.listdir(vg.root / "inbox") == ["meeting notes.md"]


def test_a_refused_second_rename_puts_the_entry_back(
    case_blind: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the temporary name: if the disk refuses the rename to the new spelling (another
    program's file arrived there), the first rename is undone and the caller hears FileExistsError."""
    root = tmp_path / "v"
    root.mkdir()
    (root / "meeting notes.md").write_text("# m\n")
    real = dirfd._rename_noreplace
    calls: list[str] = []

    def refuse_second(src_dir: Any, src_name: str, dst_dir: Any, dst_name: str, dst: str) -> None:
        calls.append(dst_name)
        if len(calls) == 2:
            raise FileExistsError(17, "already exists", dst)
        real(src_dir, src_name, dst_dir, dst_name, dst)

    monkeypatch.setattr(dirfd, "_rename_noreplace", refuse_second)
    with pytest.raises(FileExistsError):
        dirfd.rename(root, "meeting notes.md", "Meeting Notes.md", replace=False)
    assert os.listdir(root) == ["meeting notes.md"] and (root / "meeting notes.md").read_text() == "# m\n"
    assert calls[0].startswith("meeting notes (renaming ") and calls[0].endswith(").md")
