"""undo_last_plan of a note renamed in letter case only on a case-blind disk puts the old spelling
back (review R1 s63 F12). The move was journaled as two file records; both names reach the one
file, so the new name's "prior" was the note itself and the old name read as never changed: the
undo answered restored: ['Inbox/Meeting Notes.md'], no conflict, and left the note renamed. The
rename is now journaled as one entry renamed (as a folder's is) and undone through the same
`dirfd.rename`, which goes through a temporary name.

The disk is case-blind for look-ups by name, as in test_case_blind_rename.py, and here also for
opens without O_CREAT and unlinks by name (what the journal and undo read and remove with)."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.case_rename_killed import case_blind as make_case_blind
from tests.conftest import Harness, e2e, started
from tests.e2e.calls import error, ok

VAULT = {"Inbox/meeting notes.md": "# m\nimportant\n", "Home.md": "see [[Inbox/meeting notes]]\n"}


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


@pytest.fixture
def case_blind(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    make_case_blind(tmp_path, monkeypatch.setattr)
    prefix = str(tmp_path)
    real_open, real_unlink = os.open, os.unlink

    def twin(path: Any, dir_fd: int | None) -> str | None:
        if not isinstance(path, str | os.PathLike) or isinstance(path, bytes):
            return None
        text = os.fspath(path)
        folder, name = os.path.split(text)
        if dir_fd is None and not os.path.abspath(text).startswith(prefix):
            return None
        try:
            listed = os.listdir(dir_fd if dir_fd is not None and not folder else (folder or "."))
        except OSError:
            return None
        found = next((n for n in listed if n != name and _fold(n) == _fold(name)), None)
        return None if found is None else os.path.join(folder, found)

    def blind_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        try:
            return real_open(path, flags, mode, dir_fd=dir_fd)
        except FileNotFoundError:
            found = None if flags & os.O_CREAT else twin(path, dir_fd)
            if found is None:
                raise
            return real_open(found, flags, mode, dir_fd=dir_fd)

    def blind_unlink(path: Any, *, dir_fd: int | None = None) -> None:
        try:
            real_unlink(path, dir_fd=dir_fd)
        except FileNotFoundError:
            found = twin(path, dir_fd)
            if found is None:
                raise
            real_unlink(found, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", blind_open)
    monkeypatch.setattr(os, "unlink", blind_unlink)
    yield


async def _renamed(vg: Harness) -> None:
    await vg.indexed()
    done = await vg.ok("rename_note", path="Inbox/meeting notes", new_path="Meeting Notes")
    assert done["path"] == "Inbox/Meeting Notes.md" and os.listdir(vg.root / "Inbox") == ["Meeting Notes.md"]


async def test_undo_of_a_case_only_rename_on_a_case_blind_disk(
    case_blind: None, make_vault: Callable[..., Path]
) -> None:
    async with started(make_vault(VAULT), index={"watch": False}) as vg:
        await _renamed(vg)
        dry = await vg.ok("undo_last_plan", dry_run=True)
        assert dry["restored"] == ["Inbox/meeting notes.md"] and dry["conflicts"] == [], dry
        undone = await vg.confirmed("undo_last_plan")
        assert undone["restored"] == ["Inbox/meeting notes.md"] and undone["conflicts"] == [], undone
        assert os.listdir(vg.root / "Inbox") == ["meeting notes.md"]  # the old spelling, no temporary name
        assert vg.read("Inbox/meeting notes.md") == VAULT["Inbox/meeting notes.md"]
        assert [n for n in os.listdir(vg.root) if n.endswith(".vgcase")] == []
        redo = await vg.confirmed("undo_last_plan")  # undoing the undo renames it again
        assert redo["conflicts"] == [] and os.listdir(vg.root / "Inbox") == ["Meeting Notes.md"]


async def test_a_note_replaced_since_is_a_conflict_not_a_rename(
    case_blind: None, make_vault: Callable[..., Path]
) -> None:
    async with started(make_vault(VAULT), index={"watch": False}) as vg:
        await _renamed(vg)
        os.rename(vg.root / "Inbox" / "Meeting Notes.md", vg.root / "Inbox" / "Other.md")  # moved by hand since
        error = await vg.err("undo_last_plan", "conflict", elicit_token=await vg.token_for("undo_last_plan"))
        assert error["details"] == {
            "path": "Inbox/Meeting Notes.md",
            "to": "Inbox/meeting notes.md",
            "reason": "moved or replaced since",
        }
        assert os.listdir(vg.root / "Inbox") == ["Other.md"]


async def test_undo_of_a_case_only_rename_over_http(case_blind: None, make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with e2e(root, index={"watch": False}) as (url, h), Client(url, mode="auto") as c:
        await h.indexed()
        args = {"path": "Inbox/meeting notes", "new_path": "Meeting Notes"}
        assert (await ok(c, "rename_note", args, dry_run=False))["path"] == "Inbox/Meeting Notes.md"
        ask = await error(c, "undo_last_plan")
        assert "renamed back: Inbox/Meeting Notes.md to Inbox/meeting notes.md" in ask["details"]["preview"], ask
        store = h.app.services.confirmations
        [request] = await store.pending(ask["details"]["args_hash"], ask["details"]["vault"])
        token, _ = await store.mint(request, minted_by="test")
        undone = await ok(c, "undo_last_plan", elicit_token=str(token))
        assert undone["restored"] == ["Inbox/meeting notes.md"], undone
        assert os.listdir(root / "Inbox") == ["meeting notes.md"]
